/**
 * Gateway call metrics, fed once per call from its usage record (the proxy's call recorder) and once per failed
 * upstream attempt. Every label value comes from a closed set: models through ModelLabels, upstream styles and
 * outcomes from fixed lists, accounts from the instance's configured accounts (their ids), refusal codes and
 * upstream failure reasons from the error catalogue. The cells of a (model, style, account, outcome) combination
 * are resolved once and kept in a Map, so a call costs one lookup and a few additions.
 */
import { ERRORS } from '../errors.ts';
import { CounterFamily, HistogramFamily, type CounterCell, type HistogramCell } from './metric-families.ts';
import { OTHER, type ModelLabels } from './model-labels.ts';

/** What a call's usage record says (proxy/metering/usage-record.ts has these fields among others). */
export interface GatewayCallFacts {
  model: string;
  servedModel: string | null;
  upstreamStyle: string | null;
  accountId: string | null;
  status: number;
  errorCode: string | null;
  latencyMs: number;
  ttfbMs: number | null;
  stream: boolean;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

export type CallOutcome = 'ok' | 'refused' | 'limited' | 'upstream_error' | 'client_gone' | 'error';

/** Refusals that name a limit or a backpressure bound (docs/metrics.md lists them). */
const LIMIT_CODES: ReadonlySet<string> = new Set([
  'key_requests_per_minute', 'key_requests_per_day', 'key_tokens_per_month', 'key_dollars_per_month', 'team_ai_tokens',
  'usage_backlog', 'counters_unavailable',
]);
const STYLES: ReadonlySet<string> = new Set(['chat', 'messages', 'generative', 'responses']);
const NONE = 'none';
const MAX_ACCOUNTS = 1_000;

/** Latency buckets in seconds: from a cached refusal (ms) to a long generation (minutes). */
const LATENCY_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const TTFT_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30];

export function outcomeOf(f: Pick<GatewayCallFacts, 'errorCode' | 'status'>): CallOutcome {
  const code = f.errorCode;
  if (code === null) return f.status < 400 ? 'ok' : 'upstream_error';
  if (code === 'client_disconnected') return 'client_gone';
  if (code === 'internal_error') return 'error';
  if (LIMIT_CODES.has(code)) return 'limited';
  if (code.startsWith('upstream_') || code === 'no_account_available') return 'upstream_error';
  return 'refused';
}

interface CallCells {
  calls: CounterCell;
  latency: HistogramCell;
  ttft: HistogramCell;
  input: CounterCell;
  output: CounterCell;
  cacheRead: CounterCell;
  cacheWrite: CounterCell;
  cost: CounterCell;
}

export class GatewayMetrics {
  readonly calls = new CounterFamily('svc_gateway_calls_total', 'Gateway calls by model (served, else asked), upstream style, account and outcome.', ['model', 'upstream_style', 'account', 'outcome']);
  readonly latency = new HistogramFamily('svc_gateway_call_duration_seconds', 'Gateway call duration, from the request to the last byte of the answer.', ['model', 'upstream_style'], LATENCY_S);
  readonly ttft = new HistogramFamily('svc_gateway_time_to_first_token_seconds', 'Time to the first byte of a streamed answer (its first event) for answered streamed calls.', ['model', 'upstream_style'], TTFT_S);
  readonly tokens = new CounterFamily('svc_gateway_tokens_total', 'Tokens of gateway calls by model and kind (input excludes cache reads and writes; output includes reasoning).', ['model', 'kind']);
  readonly cost = new CounterFamily('svc_gateway_cost_usd_total', 'Cost of gateway calls in US dollars, at the instance prices, by model.', ['model']);
  readonly refusals = new CounterFamily('svc_gateway_limit_refusals_total', 'Gateway calls refused by a limit or a backpressure bound, by code.', ['code']);
  readonly upstreamErrors = new CounterFamily('svc_gateway_upstream_errors_total', 'Failed upstream attempts (each one moved on to the next account or model, or ended the call), by upstream style and reason.', ['upstream_style', 'reason']);
  readonly fallbacks = new CounterFamily('svc_gateway_fallbacks_total', 'Attempts made after a failed one: on another account of the same model, or on the next model of an alias.', ['to']);

  #models: ModelLabels;
  #cells = new Map<string, CallCells>();
  #refusalCells = new Map<string, CounterCell>();
  #accounts = new Set<string>();

  constructor(models: ModelLabels) {
    this.#models = models;
  }

  /** One finished call (its usage record). */
  call(f: GatewayCallFacts): void {
    const model = this.#models.label(f.servedModel ?? f.model);
    const style = f.upstreamStyle ?? NONE;
    const account = f.accountId ?? NONE;
    const outcome = outcomeOf(f);
    const key = `${model}\u0000${style}\u0000${account}\u0000${outcome}`;
    const c = this.#cells.get(key) ?? this.#resolve(key, model, style, account, outcome);
    c.calls.value += 1;
    c.latency.observe(f.latencyMs / 1000);
    if (f.stream && f.ttfbMs !== null && outcome === 'ok') c.ttft.observe(f.ttfbMs / 1000);
    c.input.value += f.inputTokens;
    c.output.value += f.outputTokens;
    c.cacheRead.value += f.cacheReadTokens;
    c.cacheWrite.value += f.cacheWriteTokens;
    c.cost.value += f.costUsd;
    if (outcome === 'limited') this.#refusal(f.errorCode as string).value += 1;
  }

  /** One failed upstream attempt; `reason` is a catalogue code (upstream_timeout…) or an HTTP status. */
  upstreamFailure(upstreamStyle: string, reason: string | number): void {
    const r = typeof reason === 'number' ? statusReason(reason) : reason in ERRORS ? reason : 'other';
    this.upstreamErrors.cell(STYLES.has(upstreamStyle) ? upstreamStyle : OTHER, r).value += 1;
  }

  /** A further attempt after a failure: on another account of the same model, or on the alias's next model. */
  fallback(to: 'account' | 'model'): void {
    this.fallbacks.cell(to).value += 1;
  }

  #resolve(key: string, model: string, style: string, account: string, outcome: CallOutcome): CallCells {
    const s = STYLES.has(style) ? style : NONE;
    // Account ids are the instance's own; the cap only guards against a runaway of deleted and re-created accounts.
    if (!this.#accounts.has(account) && this.#accounts.size >= MAX_ACCOUNTS) account = OTHER;
    else this.#accounts.add(account);
    const cells: CallCells = {
      calls: this.calls.cell(model, s, account, outcome),
      latency: this.latency.cell(model, s),
      ttft: this.ttft.cell(model, s),
      input: this.tokens.cell(model, 'input'),
      output: this.tokens.cell(model, 'output'),
      cacheRead: this.tokens.cell(model, 'cache_read'),
      cacheWrite: this.tokens.cell(model, 'cache_write'),
      cost: this.cost.cell(model),
    };
    this.#cells.set(key, cells);
    return cells;
  }

  #refusal(code: string): CounterCell {
    let cell = this.#refusalCells.get(code);
    if (cell === undefined) {
      cell = this.refusals.cell(code);
      this.#refusalCells.set(code, cell);
    }
    return cell;
  }

  /** Every family, for the registry. */
  families(): (CounterFamily | HistogramFamily)[] {
    return [this.calls, this.latency, this.ttft, this.tokens, this.cost, this.refusals, this.upstreamErrors, this.fallbacks];
  }
}

function statusReason(status: number): string {
  if (status === 429) return 'status_429';
  if (status === 404) return 'status_404';
  if (status >= 500) return 'status_5xx';
  return 'status_4xx';
}
