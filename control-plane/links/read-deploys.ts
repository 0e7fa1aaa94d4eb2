/**
 * Reads a link's deploys from its peer, newest pages first, until a whole page is older than the link's watermark
 * (the newest deploy time read before) or the list ends, at most MAX_PAGES pages a poll. Items that cannot name a
 * deploy (no id, no readable created_at) are skipped; duplicates and out-of-order times are the caller's to fold.
 */
import { svcError } from '../../core/errors.ts';
import { expectDone } from './answer-of-peer.ts';
import { KIND, type LinkKind, type PeerDeploy } from './link-kinds.ts';
import { PEER_TITLE, type PeerClient } from './peer-client.ts';

export const MAX_PAGES = 10;

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

export async function readDeploys(peer: PeerClient, kind: LinkKind, target: string, watermark: Date | null): Promise<ReadDeploy[]> {
  const k = KIND[kind];
  const out: ReadDeploy[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const a = await peer.call({ method: 'GET', path: k.deploysPath(target, cursor) });
    expectDone({ peer: k.peer, label: k.label(target) }, a);
    const body = a.body as { items?: unknown; next_cursor?: unknown } | null;
    if (!body || !Array.isArray(body.items)) throw svcError('peer_bad_response', `${PEER_TITLE[k.peer]} answered the deploys of ${k.label(target)} without an items list.`, { peer: k.peer });
    const items = body.items.map(readItem).filter((d): d is ReadDeploy => d !== null);
    out.push(...items);
    const allOlder = watermark !== null && items.length > 0 && items.every((d) => d.at < watermark);
    if (allOlder || typeof body.next_cursor !== 'string' || body.next_cursor === '') break;
    cursor = body.next_cursor;
  }
  return out;
}
