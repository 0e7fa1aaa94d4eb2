/**
 * Writes what compression did (`on`) or would have done (`audit-only`) to compression_records, through the shared
 * write path (core/writes/durable-writer.ts) without a journal: these rows count savings, not money, so a full
 * queue drops a row with a log line rather than refusing a call.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../core/context.ts';
import { svcError } from '../../core/errors.ts';
import { DurableWriter } from '../../core/writes/durable-writer.ts';
import type { CompressionMode } from '../../core/ai/compression-settings.ts';

export interface CompressionRecord {
  recordId: string;
  at: Date;
  keyId: string;
  teamId: string;
  model: string;
  provider: string | null;
  session: string | null;
  mode: Exclude<CompressionMode, 'off'>;
  tokensBefore: number;
  tokensAfter: number;
  level: number;
  /** What the step that set this level rewrote (frontier.ts `stepRewritten`): the cost of a cache break at this call. */
  rewriteTokens: number;
  saved: Record<string, number>;
}

export function newRecordId(): string {
  return randomUUID();
}

export class CompressionRecords {
  #writer: DurableWriter<CompressionRecord>;
  #ctx: AppContext;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#writer = new DurableWriter<CompressionRecord>({
      name: 'compression-records',
      log: ctx.log,
      commit: async (rows) => {
        await ctx.db.query(
          `INSERT INTO compression_records (record_id, at, key_id, team_id, model, provider, session, mode, tokens_before, tokens_after, level, rewrite_tokens, saved)
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(record_id uuid, at timestamptz, key_id text, team_id text, model text,
             provider text, session text, mode text, tokens_before integer, tokens_after integer, level integer, rewrite_tokens integer, saved jsonb)
           ON CONFLICT (record_id) DO NOTHING`,
          [JSON.stringify(rows.map((r) => ({
            record_id: r.recordId, at: r.at, key_id: r.keyId, team_id: r.teamId, model: r.model, provider: r.provider, session: r.session,
            mode: r.mode, tokens_before: r.tokensBefore, tokens_after: r.tokensAfter, level: r.level, rewrite_tokens: r.rewriteTokens, saved: r.saved,
          })))],
        );
      },
      sizeOf: () => 400,
      maxRows: 20_000,
      maxBytes: 8_000_000,
      batchSize: 500,
      flushMs: 200,
      refuse: (reason) => svcError('service_unavailable', `The compression record queue is ${reason === 'closing' ? 'closing' : 'full'}.`),
    });
  }

  add(row: CompressionRecord): void {
    try {
      this.#writer.write(row).catch((err: unknown) => this.#ctx.log.warn({ err }, 'a compression record was not written'));
    } catch (err) {
      this.#ctx.log.warn({ err }, 'a compression record was dropped');
    }
  }

  drain(): Promise<void> {
    return this.#writer.drain();
  }
}
