/**
 * A small client of the svc REST API over fetch. Error answers `{"error":{"code","message","details"}}` become a
 * CliError of kind `api` with the status, code and message; a server that cannot be reached becomes a CliError of
 * kind `connection` that names the URL that was tried.
 */
import { CliError, isCliError } from './cli-error.ts';

export type Query = Record<string, string | number | undefined>;

export interface RequestOptions {
  body?: unknown;
  query?: Query;
  headers?: Record<string, string>;
}

export interface ListPage<T> {
  items: T[];
  next_cursor: string | null;
}

const TIMEOUT_MS = 60_000;

function connectionCode(err: unknown): string | undefined {
  const cause = (err as { cause?: unknown }).cause as { code?: string; message?: string; errors?: { code?: string }[] } | undefined;
  return cause?.code ?? cause?.errors?.find((e) => e.code)?.code ?? cause?.message;
}

const CONNECTION_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
};

export class ApiClient {
  readonly baseUrl: string;
  #token: string | null;
  #refresh: ((failed: string) => Promise<string>) | undefined;

  /** token null: send no Authorization header. refresh: a new token when the server says this one has expired. */
  constructor(baseUrl: string, token: string | null, refresh?: (failed: string) => Promise<string>) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#token = token;
    this.#refresh = refresh;
  }

  url(path: string, query?: Query): string {
    const u = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    try {
      return await this.#send<T>(method, path, opts);
    } catch (e) {
      // An access token lives 15 minutes: get the next one once, then send the request again.
      if (!this.#refresh || !this.#token || !isCliError(e) || e.code !== 'token_expired') throw e;
      this.#token = await this.#refresh(this.#token);
      return this.#send<T>(method, path, opts);
    }
  }

  async #send<T>(method: string, path: string, opts: RequestOptions): Promise<T> {
    const target = this.url(path, opts.query);
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(target, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const name = (err as Error).name;
      const code = connectionCode(err);
      const reason = name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : (code && CONNECTION_REASONS[code]) || code || (err as Error).message;
      throw new CliError('connection', `Could not reach the server at ${this.baseUrl} (${reason}). Is it running? Set SVC_URL or run "svc login" to point at another one.`);
    }
    const text = await res.text();
    let body: unknown = undefined;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    }
    if (!res.ok) {
      const e = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
      if (e && typeof e.code === 'string' && typeof e.message === 'string') {
        throw new CliError('api', e.message, { status: res.status, code: e.code, details: (e.details as Record<string, unknown>) ?? {} });
      }
      throw new CliError('api', `The server answered ${res.status} ${res.statusText} to ${method} ${path}${text ? `: ${text.slice(0, 200)}` : ''}.`, { status: res.status, code: 'http_error' });
    }
    if (text !== '' && body === undefined) throw new CliError('api', `The server's answer to ${method} ${path} is not JSON; is ${this.baseUrl} an svc server?`, { status: res.status, code: 'invalid_response' });
    return body as T;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  post<T>(path: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
    return this.request<T>('POST', path, { body: body ?? {}, headers });
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, { body });
  }

  delete<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  /** Every item of a list, following next_cursor (page size 200), up to `max` items. */
  async listAll<T>(path: string, query: Query = {}, max = 100_000): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.get<ListPage<T>>(path, { ...query, limit: 200, cursor });
      items.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && items.length < max);
    return items.slice(0, max);
  }
}

/** A path segment from user input (ids, names). */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
