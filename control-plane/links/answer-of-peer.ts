/**
 * What a peer's status means for us. The peers speak the family's conventions: 2xx is done, errors carry
 * {"error":{"code","message"}}. A 404 is our 404 not_found naming the peer; a 401/403 to a caller's dry run is our
 * 403 link_refused with the peer's words; anything else is 502 peer_error with them.
 */
import { svcError } from '../../core/errors.ts';
import { PEER_TITLE, type PeerAnswer, type PeerName } from './peer-client.ts';

/** The peer's own words: its error message (and code), or its status alone. */
export function peerWords(a: PeerAnswer): string {
  const e = (a.body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = typeof e?.message === 'string' ? e.message.slice(0, 300) : undefined;
  if (code && message) return `${a.status} ${code}: ${message}`;
  return `${a.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
}

export interface Target {
  peer: PeerName;
  /** 'app "web"' or 'alias "shop"', as sentences name it. */
  label: string;
}

/** Throws unless the answer is a 2xx; `dryRun` turns a 401/403 into the caller's refusal. */
export function expectDone(t: Target, a: PeerAnswer, dryRun = false): void {
  if (a.status >= 200 && a.status < 300) return;
  const who = PEER_TITLE[t.peer];
  const details = { peer: t.peer, peer_status: a.status, peer_answer: peerWords(a) };
  if (a.status === 404) throw svcError('not_found', `${who} has no ${t.label} (it answered ${peerWords(a)}).`, details);
  if (dryRun && (a.status === 401 || a.status === 403)) {
    throw svcError('link_refused', `${who} refused: you may not change ${t.label} there (it answered ${peerWords(a)}).`, details);
  }
  throw svcError('peer_error', `${who} answered ${peerWords(a)} for ${t.label}; nothing was changed.`, details);
}
