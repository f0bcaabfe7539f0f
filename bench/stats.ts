/** Order statistics of a set of samples, by nearest rank (no interpolation between samples). */
export interface Distribution {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function distribution(values: readonly number[]): Distribution {
  if (!values.length) return { count: 0, mean: Number.NaN, p50: Number.NaN, p95: Number.NaN, p99: Number.NaN, max: Number.NaN };
  const sorted = values.toSorted((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;
  return {
    count: sorted.length,
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    p50: rank(50),
    p95: rank(95),
    p99: rank(99),
    max: sorted.at(-1)!,
  };
}

export function median(values: readonly number[]): number {
  return distribution(values).p50;
}
