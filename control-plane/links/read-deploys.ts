/**
 * Reads a link's deploys from its peer, newest pages first, until a whole page is older than the link's watermark
 * (the newest deploy time read before) or the list ends, at most MAX_PAGES pages a poll. Items that cannot name a
 * deploy (no id, no readable created_at) are skipped; duplicates and out-of-order times are the caller's to fold.
 * Also: which release a deploy becomes, and which one an alias's pages report (its newest deploy that did not fail).
 */
import { svcError } from '../../core/errors.ts';
import { checkReleaseVersion } from '../projects/release-service.ts';
import { expectDone } from './answer-of-peer.ts';
import { KIND, type LinkKind, type PeerDeploy } from './link-kinds.ts';
import { PEER_TITLE, type PeerClient } from './peer-client.ts';

export const MAX_PAGES = 10;
/** Deploys that never served anything make no release. */
const FAILED = new Set(['failed', 'error', 'canceled', 'cancelled']);

export interface ReadDeploy extends PeerDeploy {
  at: Date;
}

function readItem(raw: unknown): ReadDeploy | null {
  if (!raw || typeof raw !== 'object') return null;
  const d = raw as Record<string, unknown>;
  const id = typeof d.id === 'string' || typeof d.id === 'number' ? String(d.id) : '';
  const at = typeof d.created_at === 'string' ? new Date(d.created_at) : null;
  if (!id || !at || Number.isNaN(at.getTime())) return null;
  return {
    id,
    created_at: d.created_at as string,
    at,
    release_number: typeof d.release_number === 'number' ? d.release_number : undefined,
    status: typeof d.status === 'string' ? d.status : undefined,
  };
}

async function readPage(peer: PeerClient, kind: LinkKind, target: string, cursor: string | null): Promise<{ items: ReadDeploy[]; next: string | null }> {
  const k = KIND[kind];
  const a = await peer.call({ method: 'GET', path: k.deploysPath(target, cursor) });
  expectDone({ peer: k.peer, label: k.label(target) }, a);
  const body = a.body as { items?: unknown; next_cursor?: unknown } | null;
  if (!body || !Array.isArray(body.items)) throw svcError('peer_bad_response', `${PEER_TITLE[k.peer]} answered the deploys of ${k.label(target)} without an items list.`, { peer: k.peer });
  const next = typeof body.next_cursor === 'string' && body.next_cursor !== '' ? body.next_cursor : null;
  return { items: body.items.map(readItem).filter((d): d is ReadDeploy => d !== null), next };
}

export async function readDeploys(peer: PeerClient, kind: LinkKind, target: string, watermark: Date | null): Promise<ReadDeploy[]> {
  const out: ReadDeploy[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { items, next } = await readPage(peer, kind, target, cursor);
    out.push(...items);
    const allOlder = watermark !== null && items.length > 0 && items.every((d) => d.at < watermark);
    if (allOlder || next === null) break;
    cursor = next;
  }
  return out;
}

/** The release a deploy becomes (`<app>@<release number>`, `<alias>@<deploy id>`); null for a failed deploy or a name we cannot store. */
export function releaseOf(kind: LinkKind, target: string, d: ReadDeploy): string | null {
  if (FAILED.has(d.status ?? '')) return null;
  const version = KIND[kind].release(target, d);
  if (version === null) return null;
  try {
    return checkReleaseVersion(version);
  } catch {
    return null;
  }
}

export interface ServedRelease {
  release: string;
  at: Date;
}

/** The release of the newest deploy among these that did not fail: the one an alias serves, so its pages report. */
export function newestRelease(kind: LinkKind, target: string, deploys: readonly ReadDeploy[]): ServedRelease | null {
  let best: ServedRelease | null = null;
  for (const d of deploys) {
    const release = releaseOf(kind, target, d);
    if (release !== null && (best === null || d.at > best.at)) best = { release, at: d.at };
  }
  return best;
}

/** At link time: the release of the alias's newest deploy on the first page of its list (the poller corrects it). */
export async function currentRelease(peer: PeerClient, kind: LinkKind, target: string): Promise<ServedRelease | null> {
  return newestRelease(kind, target, (await readPage(peer, kind, target, null)).items);
}
