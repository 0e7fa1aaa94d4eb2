/**
 * Small HTTP calls a subscription account makes besides generation (token exchange and refresh, device flow, usage
 * endpoint, Code Assist project lookup), through the account's outbound proxy when it has one (undici ProxyAgent),
 * so the provider sees one address per account. A network failure or timeout resolves to `{ status: 0 }` with the
 * reason instead of throwing: callers decide between "refused" and "provider unavailable".
 */
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';

export interface HttpAnswer {
  /** 0 when no answer arrived (connection failed or timed out). */
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
  text: string;
  /** Why no answer arrived (status 0). */
  failure?: string;
}

export interface HttpCall {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  proxyUrl?: string | null;
  timeoutMs?: number;
}

const MAX_BODY = 1024 * 1024;
const dispatchers = new Map<string, Dispatcher>();

/** The dispatcher for an outbound proxy URL (shared per URL), or a plain agent. */
export function outboundDispatcher(proxyUrl: string | null | undefined): Dispatcher {
  const id = proxyUrl ?? '';
  let d = dispatchers.get(id);
  if (!d) {
    d = proxyUrl ? new ProxyAgent({ uri: proxyUrl, connectTimeout: 10_000 }) : new Agent({ connectTimeout: 10_000 });
    dispatchers.set(id, d);
  }
  return d;
}

export async function httpCall(url: string, call: HttpCall = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  let body: string | undefined;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  } else if (call.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(call.form).toString();
  }
  const timeout = call.timeoutMs ?? 15_000;
  try {
    const res = await request(url, {
      method: call.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      dispatcher: outboundDispatcher(call.proxyUrl),
      headersTimeout: timeout,
      bodyTimeout: timeout,
      signal: AbortSignal.timeout(timeout),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of res.body) {
      size += (c as Buffer).length;
      if (size > MAX_BODY) {
        res.body.destroy();
        return { status: 0, headers: {}, json: undefined, text: '', failure: 'the answer is larger than 1 MB' };
      }
      chunks.push(c as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, json, text };
  } catch (e) {
    const err = e as { code?: string; name?: string; message?: string };
    const failure = err.name === 'TimeoutError' || err.code === 'UND_ERR_HEADERS_TIMEOUT' ? `no answer within ${timeout / 1000} s` : err.code ?? err.message ?? 'unknown error';
    return { status: 0, headers: {}, json: undefined, text: '', failure };
  }
}

/** A short, secret-free description of an answer for logs and stored errors. */
export function describeAnswer(a: HttpAnswer): string {
  if (a.status === 0) return `no answer (${a.failure})`;
  const j = a.json as { error?: unknown; error_description?: unknown; detail?: unknown } | undefined;
  const code = typeof j?.error === 'string' ? j.error : typeof (j?.error as { type?: unknown })?.type === 'string' ? (j?.error as { type: string }).type : undefined;
  return `HTTP ${a.status}${code ? ` ${code}` : ''}`;
}
