/**
 * One delivery attempt: POST the JSON body, signed, with a 10 s limit on the whole exchange, through the guarded
 * agent (core/net/guarded-agent.ts), which refuses private targets when connecting unless the instance allows them.
 * Redirects are never followed, with or without that setting: a receiver is a fixed endpoint, a redirected POST has
 * no agreed meaning, and a redirect is the usual way to bounce a request to an internal address. A 3xx is recorded as
 * a failed attempt that says so. A 2xx answer is success; anything else, or a network error, is a failure recorded
 * with its status or error text.
 *
 * Wire format (docs/webhooks.md):
 *   POST <url>
 *   Content-Type: application/json
 *   X-Svc-Delivery: dlv_…           (the same on every retry of this delivery: deduplicate on it)
 *   X-Svc-Event: issue.new
 *   X-Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">
 *   {"id":"dlv_…","event":"evt_…","kind":"issue.new","team":"…","created_at":"…","data":{…}}
 */
import { request, type Agent, type Dispatcher } from 'undici';
import { guardedAgent, type GuardOptions } from '../../core/net/guarded-agent.ts';
import { signatureHeader } from './webhook-signature.ts';

export const DELIVERY_TIMEOUT_MS = 10_000;
const KEEP_ERROR_BODY = 300;

export interface DeliveryRequest {
  url: string;
  deliveryId: string;
  kind: string;
  secret: string;
  body: string;
  /** The signature timestamp (ctx.clock), unix seconds. */
  unixSeconds: number;
  attempt: number;
}

export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** The setting that lets webhooks reach private addresses (docs/webhooks.md), named in every refusal. */
export const PRIVATE_WEBHOOKS_OPT_IN = 'SVC_ALLOW_PRIVATE_WEBHOOKS';

/** The connection pool for webhook calls: every connection is checked by the private-target guard. */
export function webhookAgent(allowPrivate: boolean, timeoutMs = DELIVERY_TIMEOUT_MS, guard: Pick<GuardOptions, 'resolve' | 'exempt'> = {}): Agent {
  return guardedAgent({
    ...guard,
    allowPrivate,
    optIn: PRIVATE_WEBHOOKS_OPT_IN,
    connectTimeoutMs: timeoutMs,
    agent: { headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 10_000, connections: 16 },
  });
}

async function readSnippet(body: Dispatcher.ResponseData['body']): Promise<string> {
  let text = '';
  for await (const chunk of body) {
    text += Buffer.from(chunk as Uint8Array).toString('utf8');
    if (text.length >= KEEP_ERROR_BODY) break;
  }
  body.destroy();
  return text.slice(0, KEEP_ERROR_BODY).replace(/\s+/g, ' ').trim();
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT' || e?.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `The receiver did not answer within ${timeoutMs / 1000} seconds.`;
  }
  const msg = e?.cause?.message ?? e?.message ?? String(err);
  const code = e?.cause?.code ?? e?.code;
  return (code && !msg.includes(code) ? `${code}: ${msg}` : msg).slice(0, 500);
}

/** `agent` must be a webhookAgent: it is what refuses private targets (also those stored before the instance stopped allowing them). */
export async function deliverWebhook(agent: Dispatcher, d: DeliveryRequest, opts: { timeoutMs?: number; version: string }): Promise<AttemptOutcome> {
  const started = performance.now();
  const done = (ok: boolean, status: number | null, error: string | null): AttemptOutcome => ({ ok, status, error, durationMs: Math.round(performance.now() - started) });
  try {
    const res = await request(d.url, {
      method: 'POST',
      dispatcher: agent,
      signal: AbortSignal.timeout(opts.timeoutMs ?? DELIVERY_TIMEOUT_MS),
      headers: {
        'content-type': 'application/json',
        'user-agent': `svc-webhooks/${opts.version}`,
        'x-svc-delivery': d.deliveryId,
        'x-svc-event': d.kind,
        'x-svc-attempt': String(d.attempt),
        'x-svc-signature': signatureHeader(d.secret, d.unixSeconds, d.body),
      },
      body: d.body,
    });
    if (res.statusCode >= 200 && res.statusCode < 300) {
      await res.body.dump().catch(() => {});
      return done(true, res.statusCode, null);
    }
    const snippet = await readSnippet(res.body).catch(() => '');
    const where = res.statusCode >= 300 && res.statusCode < 400 ? ' (redirects are not followed)' : '';
    return done(false, res.statusCode, `The receiver answered ${res.statusCode}${where}${snippet ? `: ${snippet}` : '.'}`);
  } catch (err) {
    return done(false, null, describe(err, opts.timeoutMs ?? DELIVERY_TIMEOUT_MS));
  }
}
