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
  if (!values.length)
    return { count: 0, mean: Number.NaN, p50: Number.NaN, p95: Number.NaN, p99: Number.NaN, max: Number.NaN };
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

/** A seeded uniform generator (mulberry32): resampling gives the same interval for the same samples. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function percentileOf(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;
}

/**
 * How far the ratio of two percentiles (of `numerator` over `denominator`) could move by chance:
 * the central `confidence` share of the ratios over bootstrap resamples of both sample sets.
 */
export function percentileRatioInterval(
  numerator: readonly number[],
  denominator: readonly number[],
  p: number,
  confidence = 0.9,
  resamples = 2000,
): [number, number] {
  const random = seededRandom(0x5eed);
  const resampled = (values: readonly number[]) => {
    const drawn = Float64Array.from({ length: values.length }, () => values[Math.floor(random() * values.length)]!);
    return percentileOf(drawn.sort(), p);
  };
  const ratios = Float64Array.from({ length: resamples }, () => resampled(numerator) / resampled(denominator)).sort();
  const tail = (1 - confidence) / 2;
  return [percentileOf(ratios, tail * 100), percentileOf(ratios, (1 - tail) * 100)];
}
