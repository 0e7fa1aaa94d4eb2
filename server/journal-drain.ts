/**
 * `node main.js journal drain`: replays every write journal under SVC_DATA_DIR (events, usage records, call
 * bodies) into the database and exits once they are all committed, retrying while the database is unreachable.
 * For the journal a replaced node left behind (docs/operations.md, "Durability and the local journal"); a node
 * started on the directory does the same by itself.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext } from '../core/context.ts';
import { createIngest } from '../ingest/ingest-plugin.ts';
import { CallBodyWriter } from '../proxy/limits/call-body-writer.ts';
import { UsageWriter } from '../proxy/metering/usage-writer.ts';

interface Drainable {
  replay(): Promise<void>;
  drain(): Promise<void>;
  replayed(): number;
}

/** Segment files waiting in a writer's journal directory. */
function segments(dir: string): number {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.log')).length : 0;
}

export async function drainJournals(ctx: AppContext, out: (line: string) => void): Promise<void> {
  const root = join(ctx.config.dataDir, 'journal');
  const journal = (name: string) => ({ dir: join(root, name), maxBytes: ctx.config.journalMaxBytes });
  const open: Record<string, () => Drainable> = {
    events: () => {
      const ingest = createIngest(ctx);
      return { replay: () => ingest.deps.writer.replay(), drain: () => ingest.drain(), replayed: () => ingest.deps.writer.stats.replayed };
    },
    usage: () => {
      const w = new UsageWriter(ctx.db, ctx.log, { journal: journal('usage'), retentionDays: ctx.config.usageRetentionDays });
      return { replay: () => w.replay(), drain: () => w.drain(), replayed: () => w.written };
    },
    'call-bodies': () => {
      const w = new CallBodyWriter(ctx.db, ctx.log, { journal: journal('call-bodies') });
      return { replay: () => w.replay(), drain: () => w.drain(), replayed: () => w.written };
    },
  };
  for (const [name, make] of Object.entries(open)) {
    const dir = join(root, name);
    const waiting = segments(dir);
    if (waiting === 0) {
      out(`${name}: journal empty\n`);
      continue;
    }
    out(`${name}: replaying ${waiting} segment(s) from ${dir}…\n`);
    const writer = make();
    // A pass ends when the journal is empty; it keeps retrying (with backoff) while the database is unreachable.
    while (segments(dir) > 0) await writer.replay();
    await writer.drain();
    out(`${name}: ${writer.replayed()} row(s) committed; journal empty\n`);
  }
}
