/**
 * What compression saved (`on`) and would have saved (`audit-only`) beside the usage analytics (GET /api/v1/usage),
 * per group and in total. `on`: from the usage records themselves (their tokens before and after compression, read
 * with the rest of the report, rollups included: usage-query.ts). `audit-only`: the compressor runs after the
 * answer, once the usage record is written, so what it would have saved is read from compression_records over the
 * same time range, teams, visibility and filters. Token counts are estimates. Dollars are priced as in the savings
 * report (control-plane/settings/compression-report.ts): at the model's cache-read price (a cached session reads
 * most of its history from the cache) and as fresh input (without a cache). What cache breaks cost is in that
 * report only: it needs the sessions' records in order.
 */
import type { Queryable } from '../../core/db/db.ts';
import { priceOf, type PriceOverride } from '../../core/ai/price-of.ts';
import { visibleTo, type Group, type UsageFilter } from './usage-source.ts';
import type { CompressedRow } from './usage-query.ts';

export interface Savings {
  calls: number;
  tokens_before: number;
  tokens_after: number;
  tokens_saved: number;
  dollars_saved: number;
  dollars_saved_uncached: number;
}

export interface CompressionSavings {
  on: Savings;
  audit_only: Savings;
}

const GROUP_SQL: Record<Group, string> = { model: 'c.model', key: 'c.key_id', team: 'c.team_id', account: 'NULL::text' };

const none = (): Savings => ({ calls: 0, tokens_before: 0, tokens_after: 0, tokens_saved: 0, dollars_saved: 0, dollars_saved_uncached: 0 });
export const noSavings = (): CompressionSavings => ({ on: none(), audit_only: none() });
const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** Adds calls of one model to `s`, pricing the saved tokens at its cache-read and its input price. */
export function addSavings(s: Savings, model: string, calls: number, before: number, after: number, overrides: readonly PriceOverride[]): void {
  const price = priceOf(model, overrides);
  s.calls += calls;
  s.tokens_before += before;
  s.tokens_after += after;
  s.tokens_saved += before - after;
  s.dollars_saved = round(s.dollars_saved + ((before - after) * (price?.cacheRead ?? 0)) / 1e6);
  s.dollars_saved_uncached = round(s.dollars_saved_uncached + ((before - after) * (price?.input ?? 0)) / 1e6);
}

/** What the cache breaks of compressed sessions cost (the savings report only: it needs the sessions' records in order). */
export interface Rewrites {
  cache_breaks: number;
  tokens_rewritten: number;
  dollars_cache_rewrites: number;
  dollars_saved_net: number;
}

/**
 * Adds the cache breaks of calls of one model to `s`, after their savings: a rewritten token costs its cache write
 * instead of a cache read. Providers with automatic caching list no write surcharge (their writes cost what fresh
 * input costs), so the write is the dearer of the two listed prices.
 */
export function addRewrites(s: Savings & Rewrites, model: string, breaks: number, tokens: number, overrides: readonly PriceOverride[]): void {
  const price = priceOf(model, overrides);
  s.cache_breaks += breaks;
  s.tokens_rewritten += tokens;
  if (price) s.dollars_cache_rewrites = round(s.dollars_cache_rewrites + (tokens * (Math.max(price.cacheWrite, price.input) - price.cacheRead)) / 1e6);
  s.dollars_saved_net = round(s.dollars_saved - s.dollars_cache_rewrites);
}

/** The key of a group's values, as usage-routes.ts builds it from g0…g3. */
export const groupKey = (values: ReadonlyArray<string | null>): string => values.map((v) => v ?? '').join('\u0000');

function where(f: UsageFilter, params: unknown[]): string {
  return [`c.at >= $${params.push(f.from)}`, `c.at < $${params.push(f.to)}`, ...visibleTo('c', f, params)].join(' AND ');
}

/** Adds the calls compressed in `on` (usage-query.ts, per group and model) to `out`, per group and in total. */
export function addOnSavings(out: Map<string, CompressionSavings>, groups: readonly Group[], rows: readonly CompressedRow[], overrides: readonly PriceOverride[]): void {
  const add = (key: string, row: CompressedRow) => {
    const s = out.get(key) ?? noSavings();
    addSavings(s.on, row.model, row.calls, row.tokens_before, row.tokens_after, overrides);
    out.set(key, s);
  };
  for (const row of rows) {
    const values = groups.map((_, i) => (row as unknown as Record<string, string | null>)[`g${i}`] ?? null);
    add(groupKey(values), row);
    if (groups.length > 0) add('', row);
  }
}

/** audit-only savings per group (keyed by groupKey of the group's values) and in total (key ''). */
export async function queryAuditSavings(db: Queryable, f: UsageFilter, groups: readonly Group[], overrides: readonly PriceOverride[]): Promise<Map<string, CompressionSavings>> {
  const params: unknown[] = [];
  const cols = groups.map((g, i) => `${GROUP_SQL[g]} AS g${i}`);
  const r = await db.query<Record<string, string | null> & { model: string; calls: number; before: string; after: string }>(
    `SELECT ${[...cols, 'c.model AS model', 'count(*)::int AS calls', 'sum(c.tokens_before) AS before', 'sum(c.tokens_after) AS after'].join(', ')}
       FROM compression_records c WHERE ${where(f, params)} AND c.mode = 'audit-only'
      GROUP BY ${[...groups.map((_, i) => `g${i}`), 'model'].join(', ')}`,
    params,
  );
  const out = new Map<string, CompressionSavings>();
  const add = (key: string, row: (typeof r.rows)[number]) => {
    const s = out.get(key) ?? noSavings();
    addSavings(s.audit_only, row.model, row.calls, Number(row.before), Number(row.after), overrides);
    out.set(key, s);
  };
  for (const row of r.rows) {
    add(groupKey(groups.map((_, i) => row[`g${i}`] ?? null)), row);
    if (groups.length > 0) add('', row);
  }
  if (groups.length === 0 && !out.has('')) out.set('', noSavings());
  return out;
}
