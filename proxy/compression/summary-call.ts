/**
 * A summary call runs through the gateway's own pipeline (run-call.ts) as a call of the key named in the settings:
 * the key's models, limits and budgets apply, the call is metered and billed to it (one usage record), and an
 * alias or a failover works as for any client. It is run in process, with a request and response made by
 * light-my-request instead of a socket; nothing of it reaches a client.
 */
import type { FastifyReply } from 'fastify';
import inject from 'light-my-request';
import { toGatewayKey } from '../keys/key-store.ts';
import type { Gateway } from '../gateway.ts';
import type { GatewayCall } from '../pipeline/gateway-call.ts';
import { runCall } from '../pipeline/run-call.ts';
import { summaryRequestBody, type SummaryInput } from './summary-prompt.ts';

const HEADERS = { 'content-type': 'application/json', 'user-agent': 'svc-compression-summary' };

/** The key of the summary calls, read by id (the proxy's key cache is by secret, which the settings do not hold). */
async function summaryKey(gw: Gateway, keyId: string) {
  const r = await gw.ctx.db.query<Parameters<typeof toGatewayKey>[0]>(
    `SELECT id, team_id, owner_user_id, name, allowed_models, limits, log_bodies, compression, response_store_ttl,
            (SELECT t.compression FROM teams t WHERE t.id = team_id) AS team_compression
       FROM gateway_keys WHERE id = $1 AND deleted_at IS NULL AND NOT disabled`,
    [keyId],
  );
  if (r.rows.length === 0) throw new Error(`the summary key ${keyId} does not exist or is disabled`);
  return toGatewayKey(r.rows[0]);
}

/** The message of a refusal or an upstream error, in any client style's error shape. */
function errorMessage(status: number, body: string): string {
  try {
    const e = (JSON.parse(body) as { error?: { message?: unknown; code?: unknown } }).error;
    if (e && typeof e.message === 'string') return `${status} ${typeof e.code === 'string' ? `${e.code}: ` : ''}${e.message}`;
  } catch {
    // not JSON: the status says enough
  }
  return `status ${status}`;
}

/** The summary text of `turns` made by `model`; throws with a readable reason when the call does not succeed. */
export async function makeSummary(gw: Gateway, keyId: string, model: string, input: SummaryInput): Promise<string> {
  const key = await summaryKey(gw, keyId);
  const body = summaryRequestBody(model, input);
  const raw = Buffer.from(JSON.stringify(body));
  const call: GatewayCall = {
    clientStyle: 'chat', op: 'generate', key, model, stream: false, jsonArray: false, includeUsage: false, raw, body,
    headers: HEADERS, startedAt: performance.now(), at: new Date(gw.ctx.clock.now()),
  };
  const res = await inject((_req, res) => {
    void runCall(gw, call, { raw: res, hijack: () => undefined } as unknown as FastifyReply);
  }, { method: 'POST', url: '/v1/chat/completions', headers: HEADERS });
  if (res.statusCode !== 200) throw new Error(`the summary call failed: ${errorMessage(res.statusCode, res.body)}`);
  const answer = res.json() as { choices?: { message?: { content?: unknown } }[] };
  const text = answer.choices?.[0]?.message?.content;
  if (typeof text !== 'string' || text.trim() === '') throw new Error('the summary call answered no text');
  return text.trim();
}
