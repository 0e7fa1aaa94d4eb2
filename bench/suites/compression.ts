/**
 * Compression savings on generated coding-agent sessions (issue 13 targets; figures in docs/compression.md):
 * each session replayed turn by turn with and without the compressor (default thresholds), priced with the
 * messages-style cache (writes 1.25×, reads 0.1×) and with automatic caching (reads 0.1×). Prints, over sessions
 * whose last request is past 50 k tokens, the aggregate input-token and cost savings and the 10th percentile of
 * per-session cost savings; over all sessions, cache breaks, kept spans and tool pairs, and the compressor's time
 * per 100 k tokens. `--sessions N` (default 24), `--first-seed S` (default 1000; 2000 for the held-out set).
 */
import type { BenchSuite } from '../run.ts';
import { compressConversation } from '../../compressor/compress-conversation.ts';
import { DEFAULT_COMPRESS_OPTIONS } from '../../compressor/compress-options.ts';
import { sessionCorpus } from '../compression/session-corpus.ts';
import { AUTOMATIC_CACHE, MESSAGES_CACHE, replaySession } from '../compression/replay-session.ts';
import { checkSession } from '../compression/check-session.ts';

const LARGE = 50_000;
const pct = (saved: number, base: number) => `${((100 * saved) / base).toFixed(1)} %`;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;

export const suite: BenchSuite = {
  name: 'compression',
  description: 'conversation compression: tokens and cache-aware input cost saved on generated agent sessions',
  async run(args) {
    const opt = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
    const corpus = sessionCorpus(opt('--sessions', 24), opt('--first-seed', 1000));
    const prices = [MESSAGES_CACHE, AUTOMATIC_CACHE];
    const base = { tokens: 0, cost: [0, 0] };
    const comp = { tokens: 0, cost: [0, 0] };
    const perSession: number[] = [];
    const times: number[] = [];
    let large = 0;
    let breaks = 0;
    let brokenPairs = 0;
    let spans = 0;
    let spansKept = 0;
    for (const s of corpus) {
      const b = replaySession(s.conversation, undefined, prices);
      const c = replaySession(s.conversation, DEFAULT_COMPRESS_OPTIONS, prices);
      const check = checkSession(s, compressConversation(s.conversation, DEFAULT_COMPRESS_OPTIONS).conversation);
      brokenPairs += check.brokenPairs;
      spans += s.spans.length;
      spansKept += check.spansKept;
      times.push(...c.msPer100k);
      breaks += c.cacheBreaks;
      if (b.lastTokens < LARGE) continue;
      large++;
      base.tokens += b.inputTokens;
      comp.tokens += c.inputTokens;
      prices.forEach((_, k) => {
        base.cost[k] += b.cost[k];
        comp.cost[k] += c.cost[k];
      });
      perSession.push(1 - c.cost[0] / b.cost[0]);
    }
    const out = [
      `sessions: ${corpus.length}, of which ${large} end past ${LARGE} tokens (the figures below are over those)`,
      `input tokens over all requests: ${base.tokens} uncompressed, ${comp.tokens} compressed (${pct(base.tokens - comp.tokens, base.tokens)} fewer)`,
      ...prices.map((p, k) => `effective input cost, ${p.name}: ${pct(base.cost[k] - comp.cost[k], base.cost[k])} lower (${base.cost[k].toFixed(0)} → ${comp.cost[k].toFixed(0)} fresh-token units)`),
      `per-session cost saving (messages cache): p10 ${(100 * quantile(perSession, 0.1)).toFixed(1)} %, median ${(100 * quantile(perSession, 0.5)).toFixed(1)} %`,
      `all sessions: cache breaks ${breaks}; broken tool pairs ${brokenPairs}; marked spans kept ${spansKept}/${spans}`,
      `compressor time per 100 k tokens: p50 ${quantile(times, 0.5).toFixed(2)} ms, p95 ${quantile(times, 0.95).toFixed(2)} ms`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  },
};
