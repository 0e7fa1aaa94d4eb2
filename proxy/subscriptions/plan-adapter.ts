/**
 * What differs between a plan's backend and the API style it speaks: how a request is authenticated and reshaped
 * (claude-plan-adapter.ts, chatgpt-plan-adapter.ts, code-assist-adapter.ts), and how a successful answer is
 * turned back into the plain style (Codex answers only in SSE; Code Assist wraps every answer in `{response}`).
 * Adapters are pure apart from the token they are handed; the subscription send path (subscription-send.ts) owns
 * tokens and retries.
 */
import type { Dispatcher } from 'undici';
import type { SubscriptionProfile } from '../../core/ai/provider-profiles.ts';
import type { AccessToken } from '../../core/ai/subscriptions/token-manager.ts';
import type { UpstreamRequest } from '../upstream/send-upstream.ts';

export interface AdaptedRequest {
  path: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  /** Whether the client asked for a stream (a plan that always streams is buffered back into JSON when not). */
  clientStream: boolean;
}

export interface PlanAdapter {
  request(req: UpstreamRequest, token: AccessToken, profile: SubscriptionProfile): AdaptedRequest;
  /** Rewrites a successful (status < 400) answer; absent = the answer goes through as it is. */
  response?(res: Dispatcher.ResponseData, adapted: AdaptedRequest): Promise<Dispatcher.ResponseData> | Dispatcher.ResponseData;
}

/** The request's headers without any credential the client or the style encoder put there. */
export function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    const n = k.toLowerCase();
    if (n === 'authorization' || n === 'x-api-key' || n === 'x-goog-api-key') continue;
    out[n] = v;
  }
  return out;
}

/** Parses a JSON request body; undefined when it is not a JSON object (then adapters leave it alone). */
export function jsonBody(body: string | Buffer | undefined): Record<string, unknown> | undefined {
  if (body === undefined) return undefined;
  try {
    const v = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
