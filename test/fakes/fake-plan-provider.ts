/**
 * A fake subscription provider on 127.0.0.1, one flavor per instance, speaking what the gateway sends a plan:
 * - claude: OAuth (JSON token requests), `GET /api/oauth/usage`, `POST /v1/messages` with the OAuth bearer and the
 *   `anthropic-beta: oauth-2025-04-20` header (refused without it, like the real API);
 * - chatgpt: OAuth (form token requests), device flow, `POST /backend-api/codex/responses` (SSE only; `store:false`,
 *   `stream:true` and `ChatGPT-Account-Id` required, 400 `{"detail"}` otherwise), `x-codex-*` quota headers;
 * - gemini: OAuth (form, client secret), `POST /v1internal:loadCodeAssist`, `:generateContent` and
 *   `:streamGenerateContent?alt=sse` with the request wrapped as `{model, project, request}` and answers wrapped as
 *   `{response}`.
 * Generation answers reuse the wire fakes (messages-wire.ts, responses-wire.ts, generative-wire.ts). Tests script
 * failures (`script`), set the usage answer and the rate-limit headers, and read `calls`.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultAnswer, type FakeWire } from './fake-upstream.ts';
import { FakePlanOAuth } from './fake-plan-oauth.ts';
import { generativeWire } from './generative-wire.ts';
import { messagesWire } from './messages-wire.ts';
import { responsesWire } from './responses-wire.ts';

export type PlanFlavor = 'claude' | 'chatgpt' | 'gemini';

export type PlanScript = { status: number; headers?: Record<string, string>; body?: unknown };

export interface PlanCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The access token the call carried. */
  token: string | undefined;
  status: number;
}

const CLIENT_IDS: Record<PlanFlavor, string> = { claude: 'fake-claude-client', chatgpt: 'fake-chatgpt-client', gemini: 'fake-gemini-client' };
export const FAKE_PROJECT = 'proj-fake-1';

export class FakePlanProvider {
  readonly flavor: PlanFlavor;
  readonly oauth: FakePlanOAuth;
  readonly calls: PlanCall[] = [];
  url = '';
  /** Answer of the usage endpoint (claude). */
  usage: PlanScript = { status: 200, body: { five_hour: { utilization: 10, resets_at: null }, seven_day: { utilization: 20, resets_at: null }, seven_day_opus: null } };
  /** Headers added to every successful generation answer. */
  rateLimitHeaders: Record<string, string> = {};
  #scripts: PlanScript[] = [];
  #server: Server;

  constructor(flavor: PlanFlavor) {
    this.flavor = flavor;
    this.oauth = new FakePlanOAuth(CLIENT_IDS[flavor]);
    if (flavor === 'gemini') this.oauth.clientSecret = 'fake-gemini-secret';
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    this.oauth.deviceRedirectUri = `${this.url}/deviceauth/callback`;
    return this;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Queues answers for the next generation calls (first in, first used). */
  script(...s: PlanScript[]): this {
    this.#scripts.push(...s);
    return this;
  }

  /** The SVC_PROVIDER_PROFILES entry pointing every URL of this flavor at the fake. */
  profile(): Record<string, unknown> {
    const u = this.url;
    const common = { authorize_url: `${u}/oauth/authorize`, token_url: `${u}/oauth/token`, client_id: this.oauth.clientId };
    if (this.flavor === 'claude') return { ...common, redirect_uri: `${u}/oauth/code/callback`, api_base_url: u, usage_url: `${u}/api/oauth/usage` };
    if (this.flavor === 'chatgpt') {
      return {
        ...common, redirect_uri: 'http://localhost:1455/auth/callback', api_base_url: `${u}/backend-api/codex`,
        device_usercode_url: `${u}/device/usercode`, device_token_url: `${u}/device/token`, device_verification_url: `${u}/codex/device`,
        device_redirect_uri: `${u}/deviceauth/callback`,
      };
    }
    return { ...common, client_secret: 'fake-gemini-secret', redirect_uri: `${u}/authcode`, api_base_url: u, project_url: `${u}/v1internal:loadCodeAssist` };
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const form = (req.headers['content-type'] ?? '').includes('x-www-form-urlencoded');
    let body: Record<string, unknown> = {};
    try {
      body = raw === '' ? {} : form ? Object.fromEntries(new URLSearchParams(raw)) : (JSON.parse(raw) as Record<string, unknown>);
    } catch {
      return send(res, 400, { error: 'invalid_request', detail: 'not JSON' });
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const path = url.pathname;
    if (path === '/oauth/token') {
      const wantForm = this.flavor !== 'claude';
      if (form !== wantForm) return send(res, 400, { error: 'invalid_request', error_description: `token requests must be ${wantForm ? 'form' : 'JSON'} encoded` });
      const a = await this.oauth.token(body);
      return send(res, a.status, a.body);
    }
    if (path === '/device/usercode') return sendAnswer(res, this.oauth.deviceStart(body));
    if (path === '/device/token') return sendAnswer(res, this.oauth.deviceToken(body));
    if (path === '/api/oauth/usage') {
      if (!this.oauth.isValidAccess(token)) return send(res, 401, { error: 'unauthorized' });
      return send(res, this.usage.status, this.usage.body);
    }
    if (path === '/v1internal:loadCodeAssist') {
      if (!this.oauth.isValidAccess(token)) return send(res, 401, { error: { code: 401, message: 'bad token', status: 'UNAUTHENTICATED' } });
      return send(res, 200, { cloudaicompanionProject: FAKE_PROJECT, currentTier: { id: 'free-tier' } });
    }
    return this.#generate(req, res, path, url.searchParams, body, token);
  }

  #generate(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, body: Record<string, unknown>, token: string | undefined): void {
    const call: PlanCall = { path, headers: req.headers, body, token, status: 0 };
    this.calls.push(call);
    const reply = (status: number, b: unknown, headers: Record<string, string> = {}) => {
      call.status = status;
      send(res, status, b, headers);
    };
    const wire = this.#wire();
    let inner: unknown = body;
    let wirePath = path;
    let wireQuery = query;
    if (this.flavor === 'gemini') {
      const m = /^\/v1internal:(generateContent|streamGenerateContent)$/.exec(path);
      if (!m || typeof body.model !== 'string' || typeof body.request !== 'object') return reply(404, { error: { code: 404, message: `No route ${path}.`, status: 'NOT_FOUND' } });
      if (body.project !== FAKE_PROJECT) return reply(403, { error: { code: 403, message: 'Wrong project.', status: 'PERMISSION_DENIED' } });
      inner = body.request;
      wirePath = `/v1beta/models/${body.model}:${m[1]}`;
      wireQuery = query;
    }
    if (!this.oauth.isValidAccess(token)) return reply(401, wire.error(401, 'Invalid bearer token.'));
    if (this.flavor === 'claude' && !String(req.headers['anthropic-beta'] ?? '').split(',').map((s) => s.trim()).includes('oauth-2025-04-20')) {
      return reply(401, wire.error(401, 'OAuth authentication is currently not supported.'));
    }
    if (this.flavor === 'chatgpt') {
      if (body.stream !== true || body.store !== false) return reply(400, { detail: 'Stream must be set to true and Store must be set to false' });
      if (typeof body.instructions !== 'string') return reply(400, { detail: 'Instructions are required' });
      if (req.headers['chatgpt-account-id'] !== 'acct-fake-1') return reply(400, { detail: 'missing ChatGPT-Account-Id' });
    }
    const script = this.#scripts.shift();
    if (script) return reply(script.status, script.body ?? wire.error(script.status, `Fake plan error ${script.status}.`), script.headers);
    const info = wire.inspect('POST', wirePath, wireQuery, inner);
    if (!info) return reply(404, wire.error(404, `No route ${path}.`));
    const answer = defaultAnswer(info);
    call.status = 200;
    const wrap = (o: unknown) => (this.flavor === 'gemini' ? { response: o, traceId: 'trace-1' } : o);
    if (!info.stream) return send(res, 200, wrap(wire.json(answer, info)), this.rateLimitHeaders);
    res.writeHead(200, { 'content-type': 'text/event-stream', ...this.rateLimitHeaders });
    const frames = wire.frames(answer, info);
    res.end(this.flavor === 'gemini' ? frames.map(wrapFrame).join('') : frames.join(''));
  }

  #wire(): FakeWire {
    return this.flavor === 'claude' ? messagesWire : this.flavor === 'chatgpt' ? responsesWire : generativeWire;
  }
}

function wrapFrame(frame: string): string {
  const data = /^data: (.*)$/m.exec(frame)?.[1];
  return data === undefined ? frame : `data: ${JSON.stringify({ response: JSON.parse(data) })}\n\n`;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendAnswer(res: ServerResponse, a: { status: number; body: unknown }): void {
  send(res, a.status, a.body);
}

export function startPlanProvider(flavor: PlanFlavor): Promise<FakePlanProvider> {
  return new FakePlanProvider(flavor).start();
}
