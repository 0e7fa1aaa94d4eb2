/**
 * Quota windows and reset times from the rate-limit headers of a plan's responses (reference:
 * subscription-accounts.md, llm-wire-styles.md §F4):
 * - anthropic: `anthropic-ratelimit-unified-<w>-utilization` (fraction used), `-<w>-reset` (unix s), `-<w>-status`
 *   (`allowed`, `allowed_warning`, `rejected`) for w = 5h, 7d, …; `anthropic-ratelimit-unified-status` and
 *   `anthropic-ratelimit-unified-reset` for the account as a whole.
 * - codex: `x-codex-{primary,secondary}-used-percent`, `-window-minutes`, `-reset-at` (unix s) or
 *   `-reset-after-seconds`.
 * Window names follow the usage endpoint where one exists (`5h` → `five_hour`, `7d` → `seven_day`).
 */
import type { RateLimitHeaderFormat } from '../provider-profiles.ts';
import { parseResetTime, windowSecondsOf, type QuotaWindow } from './quota-window.ts';

export type HeaderBag = Record<string, string | string[] | undefined>;

const ANTHROPIC_NAMES: Record<string, string> = { '5h': 'five_hour', '7d': 'seven_day' };

function header(h: HeaderBag, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

function num(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function anthropicWindows(h: HeaderBag, families: Record<string, string>): QuotaWindow[] {
  const out: QuotaWindow[] = [];
  const prefix = 'anthropic-ratelimit-unified-';
  for (const key of Object.keys(h)) {
    const m = /^anthropic-ratelimit-unified-([a-z0-9_]+)-utilization$/.exec(key);
    if (!m) continue;
    const label = m[1];
    let used = num(header(h, key));
    if (used === undefined) continue;
    if (header(h, `${prefix}${label}-status`) === 'rejected') used = Math.max(used, 1);
    const name = ANTHROPIC_NAMES[label] ?? label;
    out.push({ name, family: families[name] ?? null, used, resetsAt: parseResetTime(header(h, `${prefix}${label}-reset`)) ?? null, windowSeconds: windowSecondsOf(name) });
  }
  if (out.length === 0 && header(h, `${prefix}status`) === 'rejected') {
    out.push({ name: 'unified', family: null, used: 1, resetsAt: parseResetTime(header(h, `${prefix}reset`)) ?? null, windowSeconds: null });
  }
  return out;
}

function codexWindows(h: HeaderBag, now: number): QuotaWindow[] {
  const out: QuotaWindow[] = [];
  for (const name of ['primary', 'secondary']) {
    const pct = num(header(h, `x-codex-${name}-used-percent`));
    if (pct === undefined) continue;
    const minutes = num(header(h, `x-codex-${name}-window-minutes`));
    const at = parseResetTime(header(h, `x-codex-${name}-reset-at`));
    const after = num(header(h, `x-codex-${name}-reset-after-seconds`));
    out.push({
      name,
      family: null,
      used: pct / 100,
      resetsAt: at ?? (after !== undefined ? now + after * 1000 : null),
      windowSeconds: minutes !== undefined ? Math.round(minutes * 60) : null,
    });
  }
  return out;
}

/** The quota windows the headers tell about (empty when they tell nothing). */
export function windowsFromHeaders(format: RateLimitHeaderFormat | null, h: HeaderBag, families: Record<string, string>, now: number): QuotaWindow[] {
  if (format === 'anthropic') return anthropicWindows(h, families);
  if (format === 'codex') return codexWindows(h, now);
  return [];
}

/**
 * When a refused (429) call may be tried again, from the plan's headers: the reset of the exhausted windows (the
 * latest of them, since every exhausted window must reset), else the account-wide reset. Undefined when unknown.
 */
export function quotaResetFromHeaders(format: RateLimitHeaderFormat | null, h: HeaderBag, now: number): number | undefined {
  if (format === 'anthropic') {
    const overall = parseResetTime(header(h, 'anthropic-ratelimit-unified-reset'));
    if (overall !== undefined) return overall;
  }
  const windows = windowsFromHeaders(format, h, {}, now);
  const exhausted = windows.filter((w) => w.used >= 1 && w.resetsAt !== null).map((w) => w.resetsAt as number);
  return exhausted.length > 0 ? Math.max(...exhausted) : undefined;
}
