/**
 * A refused reservation as a catalogue error (DESIGN.md §3 "Refusals"): requests per minute and per day answer 429
 * with Retry-After (whole seconds until a slot frees), because every LLM SDK retries a 429 and none retries a 403;
 * spent budgets answer 403 (retrying cannot help before the month ends). The route turns the error into the
 * caller's style; the code names the limit and the level.
 */
import { svcError, type SvcError } from '../../core/errors.ts';
import type { ReserveResult } from '../../core/limits/limit-store.ts';
import type { CallEstimate } from './call-estimate.ts';

type Refusal = Extract<ReserveResult, { ok: false }>;

const usd = (n: number) => `$${n.toFixed(n < 1 ? 4 : 2)}`;
const int = (n: number) => Math.round(n).toLocaleString('en-US');

export function limitRefusal(r: Refusal, estimate: CallEstimate, resetsAt: string): SvcError {
  switch (r.code) {
    case 'key_requests_per_minute':
    case 'key_requests_per_day': {
      const seconds = Math.max(1, Math.ceil(r.retryAfterMs / 1000));
      const per = r.code === 'key_requests_per_minute' ? 'minute' : 'day';
      return svcError(r.code, `This key allows ${int(r.limit)} requests per ${per}; retry in ${seconds} s.`,
        { limit: `requests_per_${per}`, level: 'key', max: r.limit, retry_after_s: seconds }, { 'retry-after': String(seconds) });
    }
    case 'key_tokens_per_month':
      return svcError(r.code,
        `This key's budget of ${int(r.limit)} tokens per month (calendar month, UTC) is spent or too small for this call: ${int(r.used)} used, this call reserves up to ${int(estimate.tokens)} (prompt + max output tokens; lower max_tokens to fit). It resets at ${resetsAt}.`,
        { limit: 'tokens_per_month', level: 'key', max: r.limit, used: r.used, reserved: estimate.tokens, resets_at: resetsAt });
    case 'key_dollars_per_month':
      return svcError(r.code,
        `This key's budget of ${usd(r.limit)} per month (calendar month, UTC) is spent or too small for this call: ${usd(r.used)} used, this call may cost up to ${usd(estimate.dollars)} at list price (lower max_tokens to fit). It resets at ${resetsAt}.`,
        { limit: 'dollars_per_month', level: 'key', max: r.limit, used: r.used, reserved: estimate.dollars, resets_at: resetsAt });
    case 'team_ai_tokens':
      return svcError(r.code,
        `The team's budget of ${int(r.limit)} AI tokens per month (ai.tokens, calendar month, UTC) is spent or too small for this call: ${int(r.used)} used, this call reserves up to ${int(estimate.tokens)}. It resets at ${resetsAt}.`,
        { limit: 'ai.tokens', level: 'team', max: r.limit, used: r.used, reserved: estimate.tokens, resets_at: resetsAt });
  }
}

/** A dollar budget cannot be kept for a model without a price: refused rather than counted as free. */
export function unpricedRefusal(models: string[]): SvcError {
  return svcError('model_unpriced',
    `This key has a dollar budget, but ${models.join(', ')} has no price, so the call cannot be counted against it; an administrator can set one with PUT /api/v1/prices/{model}.`,
    { limit: 'dollars_per_month', level: 'key', unpriced: models });
}
