/**
 * Trying upstreams in order until one answers (DESIGN.md §3 step 8; issue 3 point 4): the plan's models in order,
 * and for each model its accounts as the picker hands them out. A 429 or 5xx answer, a timeout or a connection
 * failure moves on to the next account of the same model, then to the next model; a 404 moves on to the next
 * model. All of this happens before anything is sent to the client; the last failure is what the client gets when
 * nothing answers.
 *
 * A connection lost before any byte reached the client is such a failure too (issue 11 point 5): a non-streamed
 * answer is read whole here, so a body cut halfway (or stalled past the body timeout) moves on like a 5xx; a
 * stream is handed over only once its first chunk has arrived, so one that breaks before it moves on as well.
 */
import { isSvcError, svcError, type SvcError } from '../../core/errors.ts';
import { retryAfterSeconds } from '../../translators/upstream-error-status.ts';
import type { Gateway } from '../gateway.ts';
import type { ModelPlan, RouteStep } from '../accounts/resolve-model.ts';
import type { UpstreamAccount } from '../accounts/upstream-account.ts';
import { readBody, sendUpstream, upstreamFailure, type UpstreamResponse } from '../upstream/send-upstream.ts';
import { bodyStarted } from '../upstream/read-chunks.ts';
import { holdReadable } from '../upstream/hold-readable.ts';
import { UpstreamBody } from '../upstream/upstream-body.ts';
import { sessionKeyOf } from '../rotation/session-key.ts';
import type { PickHint } from '../accounts/account-picker.ts';
import type { PreparedRequest, RequestPreparer } from './prepare-request.ts';

export interface Attempt {
  step: RouteStep;
  account: UpstreamAccount;
  prepared: PreparedRequest;
}

export type AttemptResult =
  /**
   * An answer to relay: a success (status < 400), whole in `raw` for a non-streamed call, a stream whose first
   * chunk has arrived otherwise; or a final upstream error.
   */
  | (Attempt & { kind: 'answer'; res: UpstreamResponse; raw?: Buffer; errorBody?: Buffer })
  /** Nothing answered; `error` is what the client gets. */
  | { kind: 'failed'; attempt: Attempt | undefined; error: SvcError; res?: UpstreamResponse; errorBody?: Buffer }
  /** The client went away while waiting. */
  | { kind: 'gone'; attempt: Attempt | undefined };

const ERROR_BODY_LIMIT = 1024 * 1024;

/**
 * `onSend` is told of each attempt just before its request leaves (a streamed call writes its open row then, in
 * parallel with the upstream's answer: call-recorder.ts).
 */
export async function attemptUpstreams(
  gw: Gateway, plan: ModelPlan, preparer: RequestPreparer, signal: AbortSignal, filter?: (a: UpstreamAccount) => boolean,
  onSend?: (a: Attempt) => void,
): Promise<AttemptResult> {
  let last: Extract<AttemptResult, { kind: 'failed' }> | undefined;
  let sessionKey: string | undefined | null = null;
  // Metrics (core/metrics/gateway-metrics.ts): failed attempts, and the step of the last one to tell fallbacks apart.
  const metrics = gw.ctx.metrics.enabled ? gw.ctx.metrics.gateway : undefined;
  let failedStep = -1;
  for (const [i, step] of plan.steps.entries()) {
    const tried = new Set<string>();
    const candidates = filter ? step.accounts.filter(filter) : step.accounts;
    // The session key is worked out only when rotation asks for it (several accounts serve the model).
    const hint: PickHint = {
      lastStep: i === plan.steps.length - 1,
      get sessionKey() {
        if (sessionKey === null) sessionKey = sessionKeyOf(preparer.call);
        return sessionKey;
      },
    };
    for (;;) {
      const picked = gw.picker.pick(step.model, candidates, tried, hint);
      const account = picked instanceof Promise ? await picked : picked;
      if (account === undefined) break;
      tried.add(account.id);
      if (failedStep >= 0) metrics?.fallback(failedStep === i ? 'account' : 'model');
      // A body this style cannot express throws here (400), before any call.
      const attempt: Attempt = { step, account, prepared: preparer.prepare(step.model, account) };
      const p = attempt.prepared;
      onSend?.(attempt);
      let res: UpstreamResponse;
      try {
        res = await sendUpstream(account, { method: 'POST', path: p.path, headers: p.headers, body: p.body, signal });
      } catch (err) {
        if (signal.aborted) return { kind: 'gone', attempt };
        if (!isSvcError(err)) throw err;
        gw.picker.report(account, { ok: false });
        last = { kind: 'failed', attempt, error: err };
        metrics?.upstreamFailure(p.upstreamStyle, err.code);
        failedStep = i;
        continue;
      }
      const status = res.statusCode;
      if (status < 400) {
        let raw: Buffer | undefined;
        try {
          if (preparer.call.stream) {
            await bodyStarted(res.body);
            if (!(res.body instanceof UpstreamBody)) res = { ...res, body: holdReadable(res.body) };
          } else raw = await readBody(res.body);
        } catch (err) {
          if (signal.aborted) return { kind: 'gone', attempt };
          gw.picker.report(account, { ok: false });
          last = { kind: 'failed', attempt, error: isSvcError(err) ? err : (upstreamFailure(err, signal, true) as SvcError) };
          metrics?.upstreamFailure(p.upstreamStyle, last.error.code);
          failedStep = i;
          continue;
        }
        gw.picker.report(account, { ok: true, headers: res.headers });
        return { kind: 'answer', ...attempt, res, raw };
      }
      let errorBody: Buffer;
      try {
        errorBody = await readBody(res.body, ERROR_BODY_LIMIT);
      } catch (err) {
        if (signal.aborted) return { kind: 'gone', attempt };
        errorBody = Buffer.from(isSvcError(err) ? err.message : 'The upstream error answer could not be read.');
      }
      const retryable = status === 429 || status >= 500;
      metrics?.upstreamFailure(p.upstreamStyle, status);
      failedStep = i;
      if (!retryable && status !== 404) return { kind: 'answer', ...attempt, res, errorBody };
      if (retryable) gw.picker.report(account, { ok: false, status, retryAfterS: retryAfterSeconds(res.headers), headers: res.headers });
      last = { kind: 'failed', attempt, error: svcError('upstream_error'), res, errorBody };
      if (status === 404) break;
    }
  }
  return last ?? { kind: 'failed', attempt: undefined, error: svcError('no_account_available') };
}
