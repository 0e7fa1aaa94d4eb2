/**
 * Quota windows from a plan's usage endpoint (Claude: `GET /api/oauth/usage`, reference subscription-accounts.md):
 * an object whose members are windows `{ "utilization": <percent used>, "resets_at": <RFC 3339> }`, e.g.
 * `five_hour`, `seven_day`, `seven_day_sonnet`; a member that is null is a window the plan does not have. Anything
 * else is "an unexpected shape": the caller falls back to rate-limit headers.
 */
import { parseResetTime, windowSecondsOf, type QuotaWindow } from './quota-window.ts';

export type UsageParse = { ok: true; windows: QuotaWindow[] } | { ok: false; problem: string };

export function parseUsageWindows(json: unknown, families: Record<string, string>): UsageParse {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { ok: false, problem: 'the usage answer is not a JSON object' };
  const windows: QuotaWindow[] = [];
  for (const [name, v] of Object.entries(json)) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
    const u = (v as { utilization?: unknown }).utilization;
    if (typeof u !== 'number' || !Number.isFinite(u) || u < 0) continue;
    windows.push({
      name,
      family: families[name] ?? null,
      used: u / 100,
      resetsAt: parseResetTime((v as { resets_at?: unknown }).resets_at) ?? null,
      windowSeconds: windowSecondsOf(name),
    });
  }
  if (windows.length === 0) return { ok: false, problem: 'the usage answer holds no window with a utilization' };
  return { ok: true, windows };
}
