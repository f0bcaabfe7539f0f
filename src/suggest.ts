/** Levenshtein distance: the fewest one-character insertions, deletions or substitutions from a to b. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/**
 * The candidate a mistyped word most likely meant: the nearest by edit distance (ignoring case),
 * when it is within two edits; the first of equals wins. Undefined when nothing is that close.
 */
export function closestWord(word: string, candidates: readonly string[], maxDistance = 2): string | undefined {
  // A long word is never "close" to a short one only because both are short on letters.
  const wanted = word.toLowerCase().slice(0, 64);
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance <= maxDistance && distance < candidate.length && (!best || distance < best.distance))
      best = { candidate, distance };
  }
  return best?.candidate;
}
