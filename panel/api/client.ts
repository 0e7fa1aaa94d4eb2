/**
 * The one API client of the panel: openapi-fetch typed by paths from the service's own OpenAPI document
 * (schema.d.ts, regenerated with `npm run panel:api-types`). Requests go to the same origin with the session cookie.
 * `call` answers with the operation's success answer as the document types it (a shape a page names, usually from
 * views.ts, must match it); a refusal becomes an ApiError carrying the service's `code`, `message` and `details`
 * (the field a message belongs to).
 */
import createClient from 'openapi-fetch';
import type { paths } from './schema';

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(status: number, code: string, message: string, details: Record<string, unknown>) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
  /** The request field this refusal is about (details.field), if it names one. */
  get field(): string | undefined {
    if (typeof this.details.field === 'string') return this.details.field;
    // Schema refusals name the place as "body/<field> …" in details.issues.
    const first = Array.isArray(this.details.issues) ? String(this.details.issues[0]) : '';
    return /^(?:body|querystring)(?:\/[A-Za-z_]+)*\/([A-Za-z_]+)\b/.exec(first)?.[1];
  }
}

const listeners = new Set<() => void>();
/** Called when any answer says the session is gone (401), so the shell can send the user to sign in. */
export function onSignedOut(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export async function call<T>(request: Promise<Answer<T>>): Promise<T> {
  let a: Answer<T>;
  try {
    a = await request;
  } catch {
    throw new ApiError(0, 'network_error', 'The service did not answer; check that it is running and try again.', {});
  }
  if (a.response.ok) return a.data as T;
  const e = (a.error as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | undefined)?.error;
  const err = new ApiError(a.response.status, e?.code ?? 'http_error', e?.message ?? `The service answered ${a.response.status}.`, e?.details ?? {});
  if (a.response.status === 401 && err.code !== 'invalid_credentials') listeners.forEach((fn) => fn());
  return Promise.reject(err);
}
