/**
 * A count and its noun in agreement: `plural(1, 'attack')` is "1 attack", `plural(2, 'attack')`
 * "2 attacks". An irregular plural is given: `plural(3, 'was', 'were')` is "3 were".
 */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${agree(count, singular, pluralForm)}`;
}

/** The word alone, in agreement with a count said elsewhere: `agree(1, 'does', 'do')` is "does". */
export function agree(count: number, singular: string, pluralForm = `${singular}s`): string {
  return count === 1 ? singular : pluralForm;
}
