/** The instance's price overrides (table model_prices), read by the proxy (cached under PRICES_CACHE) and the API. */
import type { Queryable } from '../db/db.ts';
import type { PriceOverride } from './price-of.ts';

export interface PriceRow {
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  cache_read_per_mtok: number;
  cache_write_per_mtok: number;
  updated_at: Date;
}

export function overrideOf(r: PriceRow): PriceOverride {
  return { model: r.model, input: r.input_per_mtok, output: r.output_per_mtok, cacheRead: r.cache_read_per_mtok, cacheWrite: r.cache_write_per_mtok };
}

export async function readPriceOverrides(db: Queryable): Promise<PriceOverride[]> {
  const r = await db.query<PriceRow>('SELECT * FROM model_prices ORDER BY model');
  return r.rows.map(overrideOf);
}
