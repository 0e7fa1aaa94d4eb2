/**
 * The stored responses of the responses endpoint (table stored_responses), per gateway key: written when a call
 * with `store` (the responses API's default) ends, read to expand `previous_response_id` and `item_reference`, and
 * by GET/DELETE /v1/responses/{id}. Postgres holds them, so every node sees every response.
 */
import type { Queryable } from '../db/db.ts';

export type StoredItem = Record<string, unknown> & { id?: string };

export interface StoredResponse {
  id: string;
  keyId: string;
  expiresAt: Date;
  input: StoredItem[];
  response: Record<string, unknown> & { output?: StoredItem[] };
}

interface Row {
  id: string;
  key_id: string;
  expires_at: Date;
  input: StoredItem[];
  response: StoredResponse['response'];
}

const toStored = (r: Row): StoredResponse => ({ id: r.id, keyId: r.key_id, expiresAt: r.expires_at, input: r.input, response: r.response });

/** `'off'` → 0, `'7d'` → 7 days in ms. */
export function storeTtlMs(setting: string): number {
  const m = /^(\d+)d$/.exec(setting);
  return m ? Number(m[1]) * 86_400_000 : 0;
}

export function itemIdsOf(items: readonly StoredItem[]): string[] {
  const ids: string[] = [];
  for (const item of items) if (typeof item.id === 'string' && item.id !== '') ids.push(item.id);
  return ids;
}

export class ResponseStore {
  readonly #db: Queryable;

  constructor(db: Queryable) {
    this.#db = db;
  }

  async save(r: { id: string; keyId: string; createdAt: Date; expiresAt: Date; input: StoredItem[]; response: StoredResponse['response'] }): Promise<void> {
    const ids = [...itemIdsOf(r.input), ...itemIdsOf(r.response.output ?? [])];
    // A repeated id (an upstream that reuses one) keeps the newest call.
    await this.#db.query(
      `INSERT INTO stored_responses (id, key_id, created_at, expires_at, input, response, item_ids)
       VALUES ($1, $2, $3, $4, $5::text::jsonb, $6::text::jsonb, $7)
       ON CONFLICT (key_id, id) DO UPDATE SET created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
         input = EXCLUDED.input, response = EXCLUDED.response, item_ids = EXCLUDED.item_ids`,
      [r.id, r.keyId, r.createdAt, r.expiresAt, JSON.stringify(r.input), JSON.stringify(r.response), ids],
    );
  }

  /** The key's response of this id (another key's is not found, as if absent). */
  async get(keyId: string, id: string): Promise<StoredResponse | undefined> {
    const r = await this.#db.query<Row>('SELECT id, key_id, expires_at, input, response FROM stored_responses WHERE key_id = $1 AND id = $2', [keyId, id]);
    return r.rows[0] ? toStored(r.rows[0]) : undefined;
  }

  /** Whether another key stored a response of this id (a reference to it is 404, not an unknown id). */
  async heldByAnotherKey(keyId: string, id: string): Promise<boolean> {
    return (await this.#db.query('SELECT 1 FROM stored_responses WHERE id = $1 AND key_id <> $2 LIMIT 1', [id, keyId])).rows.length > 0;
  }

  /** The key's stored items with these ids (the newest copy of each), from responses not expired at `now`. */
  async items(keyId: string, ids: readonly string[], now: Date): Promise<Map<string, StoredItem>> {
    const found = new Map<string, StoredItem>();
    if (ids.length === 0) return found;
    const r = await this.#db.query<{ input: StoredItem[]; response: StoredResponse['response'] }>(
      `SELECT input, response FROM stored_responses
        WHERE key_id = $1 AND item_ids && $2::text[] AND expires_at > $3 ORDER BY created_at`,
      [keyId, ids, now],
    );
    const wanted = new Set(ids);
    for (const row of r.rows) {
      for (const item of [...row.input, ...(row.response.output ?? [])]) {
        if (typeof item.id === 'string' && wanted.has(item.id)) found.set(item.id, item);
      }
    }
    return found;
  }

  async delete(id: string, keyId: string): Promise<boolean> {
    return ((await this.#db.query('DELETE FROM stored_responses WHERE key_id = $1 AND id = $2', [keyId, id])).rowCount ?? 0) > 0;
  }
}

/** Everything a key stored (its store turned off, or the key deleted). */
export async function deleteKeyResponses(db: Queryable, keyId: string): Promise<number> {
  return (await db.query('DELETE FROM stored_responses WHERE key_id = $1', [keyId])).rowCount ?? 0;
}

/** Rows expired for more than a week: until then a reference to one is told it expired. */
export async function deleteExpiredResponses(db: Queryable, now: Date): Promise<number> {
  return (await db.query("DELETE FROM stored_responses WHERE expires_at < $1::timestamptz - interval '7 days'", [now])).rowCount ?? 0;
}
