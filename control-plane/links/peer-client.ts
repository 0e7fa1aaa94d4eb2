/**
 * Calls to one link peer (the apps or the pages service) through the outbound guard (core/net/guarded-agent.ts):
 * JSON in and out, a Bearer token, a time limit. What cannot be read becomes a SvcError that names the peer: a peer
 * that cannot be reached or does not answer in time is 502 peer_unreachable, an answer that is not JSON 502
 * peer_bad_response. Statuses are left to the caller (answer-of-peer.ts), since a 404 or 403 means different things
 * to different calls.
 */
import { request, type Dispatcher } from 'undici';
import type { PeerConfig } from '../../core/config.ts';
import { svcError } from '../../core/errors.ts';
import { isPrivateTargetError } from '../../core/net/guarded-agent.ts';

export type PeerName = 'apps' | 'pages';

export const PEER_TITLE: Record<PeerName, string> = { apps: 'The apps service', pages: 'The pages service' };

/** Bigger answers are not read (a deploy list page, an error object, an app). */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface PeerAnswer {
  status: number;
  body: unknown;
}

export interface PeerCall {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  path: string;
  /** The Bearer token: this service's own (the default) or a caller's short-lived access token. */
  token?: string;
  body?: unknown;
}

export class PeerClient {
  readonly name: PeerName;
  readonly url: string;
  #token: string;
  #agent: Dispatcher;
  #timeoutMs: number;

  constructor(name: PeerName, cfg: PeerConfig, agent: Dispatcher, timeoutMs: number) {
    this.name = name;
    this.url = cfg.url;
    this.#token = cfg.token;
    this.#agent = agent;
    this.#timeoutMs = timeoutMs;
  }

  async call(c: PeerCall): Promise<PeerAnswer> {
    const who = `${PEER_TITLE[this.name]} (${this.url})`;
    let status: number;
    let text: string;
    try {
      const res = await request(`${this.url}${c.path}`, {
        method: c.method,
        dispatcher: this.#agent,
        headers: {
          authorization: `Bearer ${c.token ?? this.#token}`,
          accept: 'application/json',
          ...(c.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: c.body === undefined ? undefined : JSON.stringify(c.body),
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      status = res.statusCode;
      text = await readLimited(res.body);
    } catch (err) {
      const why = isPrivateTargetError(err) ? `${(err as Error).message} Set SVC_ALLOW_PRIVATE_PEERS=true to allow it.` : `${(err as Error).message || 'no answer'}`;
      throw svcError('peer_unreachable', `${who} could not be reached or did not answer within ${this.#timeoutMs} ms (${c.method} ${c.path}: ${why}); nothing was changed.`, { peer: this.name });
    }
    if (text === '') return { status, body: null };
    try {
      return { status, body: JSON.parse(text) };
    } catch {
      throw svcError('peer_bad_response', `${who} answered ${c.method} ${c.path} with ${status} and a body that is not JSON; nothing was changed.`, { peer: this.name, status });
    }
  }
}

async function readLimited(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      throw new Error(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
