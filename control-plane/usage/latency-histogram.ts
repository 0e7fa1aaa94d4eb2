/**
 * Latency histograms of the usage rollups: fixed log-spaced buckets, so that histograms of any hours, days and
 * groups add up bucket by bucket. Latencies under 16 ms have a bucket each (exact); from 16 ms on, bucket j covers
 * [16·2^((j−16)/8), 16·2^((j−15)/8)) ms, eight buckets per doubling. A percentile is read like percentile_cont (linear
 * between the two order statistics around the rank) with each order statistic taken as its bucket's geometric
 * middle, so it is within LATENCY_RELATIVE_ERROR of the raw percentile (before rounding to whole ms).
 *
 * Stored packed into one numeric (the migration's usage_latency_weights): bucket b counts in units of 10^(12·b), so
 * that sum() adds histograms exactly, bucket by bucket, while each bucket stays under 10^12 calls.
 */

const EXACT_BELOW = 16;
const PER_DOUBLING = 8;
const DIGITS = 12;
/** The last bucket (usage_latency_weights holds 0…255); bucket 232 already starts at 2^31 ms. */
const LAST_BUCKET = 255;

/** 2^(1/16) − 1 ≈ 4.43 %: the farthest a value lies from its bucket's geometric middle, relative to the value. */
export const LATENCY_RELATIVE_ERROR = 2 ** (1 / (2 * PER_DOUBLING)) - 1;

/** SQL giving the bucket of an integer latency column (in ms). */
export function latencyBucketSql(col: string): string {
  return `(CASE WHEN ${col} < ${EXACT_BELOW} THEN greatest(${col}, 0) ELSE least(${LAST_BUCKET}, ${EXACT_BELOW} + floor(${PER_DOUBLING} * ln(${col}::float8 / ${EXACT_BELOW}) / ln(2::float8))::int) END)::smallint`;
}

/** The latency a bucket stands for: exact below 16 ms, else the bucket's geometric middle. */
export function bucketLatency(bucket: number): number {
  if (bucket < EXACT_BELOW) return bucket;
  return EXACT_BELOW * 2 ** ((bucket - EXACT_BELOW + 0.5) / PER_DOUBLING);
}

/** Calls per bucket (bucket b at index b) of a packed histogram, as Postgres prints the numeric (digits only). */
function packedCounts(packed: string | null): number[] {
  const digits = (packed ?? '0').split('.')[0];
  const counts: number[] = [];
  for (let end = digits.length; end > 0; end -= DIGITS) counts.push(Number(digits.slice(Math.max(0, end - DIGITS), end)));
  return counts;
}

/** The histogram (bucket → calls) of a packed one. */
export function unpackHistogram(packed: string | null): Map<number, number> {
  const h = new Map<number, number>();
  packedCounts(packed).forEach((n, b) => {
    if (n > 0) h.set(b, n);
  });
  return h;
}

/**
 * The p-quantiles (0..1) of calls per bucket, in the manner of percentile_cont (linear between the two order
 * statistics around the rank, each its bucket's latency), in one pass per order statistic; null when there are none.
 */
function countPercentiles(counts: readonly number[], ps: readonly number[]): Array<number | null> {
  let n = 0;
  for (const c of counts) n += c ?? 0;
  if (n === 0) return ps.map(() => null);
  const at = (rank: number): number => {
    let seen = 0;
    let last = 0;
    for (let b = 0; b < counts.length; b++) {
      if (!counts[b]) continue;
      seen += counts[b];
      last = b;
      if (rank < seen) return bucketLatency(b);
    }
    return bucketLatency(last);
  };
  return ps.map((p) => {
    const pos = p * (n - 1);
    const k = Math.floor(pos);
    const lo = at(k);
    return pos === k ? lo : lo + (pos - k) * (at(k + 1) - lo);
  });
}

/** The p-quantile (0..1) of a histogram; null when it is empty. */
export function histogramPercentile(h: ReadonlyMap<number, number>, p: number): number | null {
  const counts: number[] = [];
  for (const [b, c] of h) if (c > 0) counts[b] = c;
  return countPercentiles(counts, [p])[0];
}

/**
 * The p-quantiles of a packed histogram, straight off its digits (the report reads two per group for up to
 * thousands of groups: a map and a sort per quantile took about 40 µs a group).
 */
export function packedPercentiles(packed: string | null, ps: readonly number[]): Array<number | null> {
  return countPercentiles(packedCounts(packed), ps);
}
