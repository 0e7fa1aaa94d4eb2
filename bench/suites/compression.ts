/**
 * Compression savings on generated coding-agent sessions (issue 13 targets; figures in docs/compression.md and,
 * with `--write`, docs/performance.md): each session replayed turn by turn with and without the compressor (default
 * thresholds), priced with the messages-style cache (writes 1.25×, reads 0.1×) and with automatic caching (reads
 * 0.1×). Over sessions whose last request is past 50 k tokens: the aggregate input-token and cost savings and the
 * 10th percentile of per-session cost savings; over all sessions: the sessions dearer than uncompressed, cache
 * breaks, kept spans and tool pairs, and the compressor's time per 100 k tokens. Two seed sets: the one the
 * defaults were chosen on (1000…) and a held-out one (2000…). `--sessions N` (default 24 per set). A second table
 * adds summaries of the oldest turns, each made when the gateway's rule says its call pays, their own calls counted
 * as cost (SUMMARY).
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchSuite } from '../run.ts';
import { compressConversation } from '../../compressor/compress-conversation.ts';
import { DEFAULT_COMPRESS_OPTIONS } from '../../compressor/compress-options.ts';
import { RECORDED_TASKS, recordedSessions, type RecordedTask } from '../compression/recorded-sessions.ts';
import { sessionCorpus } from '../compression/session-corpus.ts';
import { AUTOMATIC_CACHE, MESSAGES_CACHE, replaySession, type SummaryModel } from '../compression/replay-session.ts';
import { checkSession } from '../compression/check-session.ts';
import { writePerformanceSection } from '../performance-doc.ts';

const LARGE = 50_000;
const PRICES = [MESSAGES_CACHE, AUTOMATIC_CACHE];
/**
 * Summaries as the gateway makes them, by a small model: gpt-4o-mini's list prices ($0.15 input, $0.60 output per
 * million tokens) against a $3 input price of the main model (Claude Sonnet), so 0.05× and 0.2× of a fresh input
 * token; 1000-token summaries (the gateway allows up to 2048); spans from 8000 tokens (the default).
 */
const SUMMARY: SummaryModel = { minTokens: 8_000, outputTokens: 1_000, input: 0.05, output: 0.2 };
const pct = (saved: number, base: number) => `${((100 * saved) / base).toFixed(1)} %`;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;

interface Measured {
  sessions: number;
  large: number;
  tokens: [number, number];
  cost: [number, number][];
  perSession: number[];
  /** Over every session, not only the large ones: how many cost more than uncompressed, and the least saving. */
  dearer: number;
  leastSaving: number;
  breaks: number;
  brokenPairs: number;
  spans: [number, number];
  times: number[];
  summaryCalls: number;
  summaryCost: number;
}

function measure(count: number, firstSeed: number, summary?: SummaryModel): Measured {
  const m: Measured = { sessions: count, large: 0, tokens: [0, 0], cost: PRICES.map(() => [0, 0]), perSession: [], dearer: 0, leastSaving: 1, breaks: 0, brokenPairs: 0, spans: [0, 0], times: [], summaryCalls: 0, summaryCost: 0 };
  for (const s of sessionCorpus(count, firstSeed)) {
    const b = replaySession(s.conversation, undefined, PRICES);
    const c = replaySession(s.conversation, DEFAULT_COMPRESS_OPTIONS, PRICES, summary);
    const check = checkSession(s, compressConversation(s.conversation, DEFAULT_COMPRESS_OPTIONS).conversation);
    m.summaryCalls += c.summaryCalls;
    m.summaryCost += c.summaryCost;
    m.brokenPairs += check.brokenPairs;
    m.spans = [m.spans[0] + check.spansKept, m.spans[1] + s.spans.length];
    m.times.push(...c.msPer100k);
    m.breaks += c.cacheBreaks;
    if (c.cost[0] > b.cost[0] || c.cost[1] > b.cost[1]) m.dearer++;
    m.leastSaving = Math.min(m.leastSaving, 1 - c.cost[0] / b.cost[0]);
    if (b.lastTokens < LARGE) continue;
    m.large++;
    m.tokens = [m.tokens[0] + b.inputTokens, m.tokens[1] + c.inputTokens];
    m.cost = m.cost.map(([x, y], k) => [x + b.cost[k], y + c.cost[k]]);
    m.perSession.push(1 - c.cost[0] / b.cost[0]);
  }
  return m;
}

function rows(m: Measured): [string, string][] {
  return [
    ['sessions (ending past 50 k tokens)', `${m.sessions} (${m.large})`],
    ['input tokens over all requests', `${m.tokens[0]} → ${m.tokens[1]} (${pct(m.tokens[0] - m.tokens[1], m.tokens[0])} fewer)`],
    ...PRICES.map((p, k): [string, string] => [`effective input cost, ${p.name}`, `${pct(m.cost[k][0] - m.cost[k][1], m.cost[k][0])} lower`]),
    ['per-session cost saving (messages cache)', `p10 ${(100 * quantile(m.perSession, 0.1)).toFixed(1)} %, median ${(100 * quantile(m.perSession, 0.5)).toFixed(1)} %`],
    ['sessions dearer than uncompressed (all sessions, either cache), least saving', `${m.dearer}, ${(100 * m.leastSaving).toFixed(1)} %`],
    // With summaries the spans kept depend on the summary model (a placeholder here), so pairs and spans are not judged.
    ['cache breaks, broken tool pairs, marked spans kept', m.summaryCalls > 0 ? `${m.breaks}, –, –` : `${m.breaks}, ${m.brokenPairs}, ${m.spans[0]}/${m.spans[1]}`],
    ['compressor time per 100 k tokens', `p50 ${quantile(m.times, 0.5).toFixed(2)} ms, p95 ${quantile(m.times, 0.95).toFixed(2)} ms`],
    ...(m.summaryCalls > 0 ? [['summary calls, their cost (in the effective cost)', `${m.summaryCalls}, ${(m.summaryCost / 1e6).toFixed(2)} M fresh-token units`] as [string, string]] : []),
  ];
}

function table(title: string, tuned: [string, string][], held: [string, string][]): string[] {
  return [`| ${title} | seeds 1000… (defaults chosen here) | seeds 2000… (held out) |`, '|---|---|---|', ...tuned.map(([name, v], i) => `| ${name} | ${v} | ${held[i][1]} |`)];
}

/**
 * The recorded sessions of the real agents, one row each, apart from the generated ones, without and with summaries
 * (SUMMARY): the file tours, the debugging loops, the long tours followed by a loop, each task with its sessions together, and the sessions past
 * 50 k tokens of every task together (the aggregate, taken over the recorded ones alone).
 */
const PLURAL: Record<RecordedTask, string> = { 'file tour': 'file tours', 'debugging loop': 'debugging loops', 'long tour, then debugging loop': 'long tours, then debugging loops' };

function recordedTable(): string[] {
  const out = [
    '| recorded session | requests | last request, tokens | input tokens | effective cost, messages cache | automatic cache | cache breaks, broken pairs, spans kept | with summaries: input tokens, cost |',
    '|---|---|---|---|---|---|---|---|',
  ];
  // tokens and cost (messages cache): without compression, with it, with summaries too; `auto`: the automatic cache.
  const sum = () => ({ tokens: [0, 0, 0], cost: [0, 0, 0], auto: [0, 0], requests: 0, breaks: 0 });
  type Sum = ReturnType<typeof sum>;
  const add = (into: Sum, t: ReturnType<typeof replaySession>[], breaks: number) => {
    t.forEach((x, k) => {
      into.tokens[k] += x.inputTokens;
      into.cost[k] += x.cost[0];
    });
    into.auto = [into.auto[0] + t[0].cost[1], into.auto[1] + t[1].cost[1]];
    into.requests += t[0].requests;
    into.breaks += breaks;
  };
  const change = (before: number, after: number, word: string) => (after > before ? `${pct(after - before, before)} ${word === 'fewer' ? 'more' : 'dearer'}` : `${pct(before - after, before)} ${word}`);
  const total = (title: string, t: Sum) => `| ${title} | ${t.requests} | | ${t.tokens[0]} → ${t.tokens[1]} (${change(t.tokens[0], t.tokens[1], 'fewer')}) | ${change(t.cost[0], t.cost[1], 'lower')} | ${change(t.auto[0], t.auto[1], 'lower')} | ${t.breaks} | ${change(t.tokens[0], t.tokens[2], 'fewer')}, ${change(t.cost[0], t.cost[2], 'lower')} |`;
  const large = sum();
  const sessions = recordedSessions();
  for (const task of RECORDED_TASKS) {
    const all = sum();
    const taskLarge = sum();
    for (const s of sessions.filter((x) => x.task === task)) {
      const b = replaySession(s.conversation, undefined, PRICES);
      const c = replaySession(s.conversation, DEFAULT_COMPRESS_OPTIONS, PRICES);
      const d = replaySession(s.conversation, DEFAULT_COMPRESS_OPTIONS, PRICES, SUMMARY);
      const check = checkSession(s, compressConversation(s.conversation, DEFAULT_COMPRESS_OPTIONS).conversation);
      out.push(`| ${s.name} (${s.style}), ${s.label} | ${b.requests} | ${b.lastTokens} | ${b.inputTokens} → ${c.inputTokens} (${change(b.inputTokens, c.inputTokens, 'fewer')}) | ${change(b.cost[0], c.cost[0], 'lower')} | ${change(b.cost[1], c.cost[1], 'lower')} | ${c.cacheBreaks}, ${check.brokenPairs}, ${check.spansKept}/${s.spans.length} | ${change(b.inputTokens, d.inputTokens, 'fewer')}, ${change(b.cost[0], d.cost[0], 'lower')} |`);
      add(all, [b, c, d], c.cacheBreaks);
      if (b.lastTokens < LARGE) continue;
      add(taskLarge, [b, c, d], c.cacheBreaks);
      add(large, [b, c, d], c.cacheBreaks);
    }
    if (task !== 'file tour') out.push(total(`${PLURAL[task]}, together`, all));
    out.push(total(`${PLURAL[task]} past 50 k tokens, together`, taskLarge));
  }
  out.push(total('all recorded sessions past 50 k tokens, together', large));
  return out;
}

export const suite: BenchSuite = {
  name: 'compression',
  description: 'conversation compression: tokens and cache-aware input cost saved on generated agent sessions',
  async run(args) {
    const count = args.includes('--sessions') ? Number(args[args.indexOf('--sessions') + 1]) : 24;
    const load = [loadavg()[0]];
    const plain = table('measure', rows(measure(count, 1000)), rows(measure(count, 2000)));
    const summarised = table('with summaries', rows(measure(count, 1000, SUMMARY)), rows(measure(count, 2000, SUMMARY)));
    const recorded = recordedTable();
    load.push(loadavg()[0]);
    // The compressor's time depends on the machine and on what else runs on it.
    const machine = `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average (1 min) ${Math.min(...load).toFixed(2)}–${Math.max(...load).toFixed(2)}.`;
    process.stdout.write(`${machine}\n`);
    process.stdout.write(`${plain.join('\n')}\n\n${summarised.join('\n')}\n\n${recorded.join('\n')}\n`);
    if (args.includes('--write')) {
      const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
      const body = ['## Conversation compression', '',
        'Generated coding-agent sessions replayed turn by turn through the compressor at its default thresholds, each request priced with the provider\'s prompt cache (cache breaks paid in full); `npm run bench -- compression --write`. Method and discussion: [compression.md](compression.md).', '', machine, '',
        ...plain, '', 'With summaries of old turns by a small model (0.05× input, 0.2× output of the main model\'s input price, 1000-token summaries, each span summarised once, when its call pays by the gateway\'s rule, with the earlier summaries as context), their calls counted as cost:', '', ...summarised,
        '', 'Recorded sessions of the real agents (test/fixtures/agent-sessions), reported apart:', '', ...recorded];
      writePerformanceSection(root, 'compression', body.join('\n'));
    }
  },
};
