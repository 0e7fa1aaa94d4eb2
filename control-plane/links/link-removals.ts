/**
 * Unlinking on the peers: the one call the unlink endpoint makes (`DELETE` of the link's path; a 404 there means it
 * is gone already), and the unlinks of a deleted project. Deleting a project unlinks first, best effort: every link
 * is removed on its peer (8 at a time, each within SVC_PEER_TIMEOUT_MS), and the delete goes on whatever the peers
 * answer. A link whose peer did not confirm is kept in link_removals by the delete's own transaction, with the error;
 * the team is told once (`link.stale`) and the links job retries it with the links' backoff for 7 days, then gives up
 * (logged). A removal is never retried while its target is linked again, and linking a target holds its removal
 * while the peer is called, so an old removal never unlinks a new link (docs/links.md).
 */
import type { AppContext } from '../../core/context.ts';
import type { Queryable } from '../../core/db/db.ts';
import { isSvcError } from '../../core/errors.ts';
import { emitEvent } from '../../core/outbox.ts';
import { expectDone } from './answer-of-peer.ts';
import { KIND, type LinkKind } from './link-kinds.ts';
import { projectLinks } from './link-store.ts';
import { retryDelayMs } from './link-sync.ts';
import { mapLimit } from './map-limit.ts';
import type { Peers } from './peers.ts';

const CONCURRENCY = 8;
const BATCH = 64;
export const GIVE_UP_MS = 7 * 24 * 3_600_000;

/** Removes the link on its peer; throws the peer's refusal (SvcError) unless it took it or had nothing. */
export async function removeOnPeer(peers: Peers, kind: LinkKind, target: string): Promise<void> {
  const k = KIND[kind];
  const a = await peers.get(k.peer).call({ method: 'DELETE', path: k.linkPath(target) });
  if (a.status !== 404) expectDone({ peer: k.peer, label: k.label(target) }, a);
}

/** What deleting a project did to one of its links: `unlinked` on the peer, or `pending` (retried) with the error. */
export interface UnlinkOutcome {
  id: string;
  kind: LinkKind;
  target: string;
  state: 'unlinked' | 'pending';
  error: string | null;
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 500);

interface RemovalRow {
  kind: LinkKind;
  target: string;
  link_id: string;
  project_id: number;
  attempts: number;
  created_at: Date;
}

export class LinkRemovals {
  #ctx: AppContext;
  #peers: Peers;

  constructor(ctx: AppContext, peers: Peers) {
    this.#ctx = ctx;
    this.#peers = peers;
  }

  /** Before a project is deleted: unlink each of its links on its peer, now; never throws. */
  async unlinkPeers(projectId: number): Promise<UnlinkOutcome[]> {
    const links = await projectLinks(this.#ctx.db, projectId);
    return mapLimit(links, CONCURRENCY, async (l): Promise<UnlinkOutcome> => {
      try {
        await removeOnPeer(this.#peers, l.kind, l.target);
        return { id: l.id, kind: l.kind, target: l.target, state: 'unlinked', error: null };
      } catch (e) {
        if (!isSvcError(e)) this.#ctx.log.error({ err: e, link: l.id }, 'unlink of a deleted project failed');
        return { id: l.id, kind: l.kind, target: l.target, state: 'pending', error: errorText(e) };
      }
    });
  }

  /**
   * In the delete's transaction, before the project's rows go: a removal for every link the peers did not confirm
   * (including one made while the peers were being called), and `link.stale` to the team for each that failed.
   * The outcomes, with such late links added as pending; the caller announces the events after the commit.
   */
  async keepPending(q: Queryable, projectId: number, teamId: string, outcomes: UnlinkOutcome[]): Promise<UnlinkOutcome[]> {
    const unlinked = outcomes.filter((o) => o.state === 'unlinked').map((o) => o.id);
    const failed = new Map(outcomes.filter((o) => o.state === 'pending').map((o) => [o.id, o.error]));
    const now = new Date(this.#ctx.clock.now());
    const kept = await q.query<{ link_id: string; kind: LinkKind; target: string }>(
      `INSERT INTO link_removals (kind, target, link_id, project_id, team_id, attempts, last_error, next_attempt_at, created_at)
       SELECT l.kind, l.target, l.id, l.project_id, $2, CASE WHEN e.error IS NULL THEN 0 ELSE 1 END, e.error,
              CASE WHEN e.error IS NULL THEN NULL ELSE $5::timestamptz + interval '1 millisecond' * $6 END, $5
         FROM project_links l LEFT JOIN unnest($3::text[], $4::text[]) AS e(id, error) ON e.id = l.id
        WHERE l.project_id = $1 AND l.id <> ALL($7::text[])
       ON CONFLICT (kind, target) DO UPDATE SET link_id = EXCLUDED.link_id, project_id = EXCLUDED.project_id, team_id = EXCLUDED.team_id,
         attempts = EXCLUDED.attempts, last_error = EXCLUDED.last_error, next_attempt_at = EXCLUDED.next_attempt_at, leased_until = NULL, created_at = EXCLUDED.created_at
       RETURNING link_id, kind, target`,
      [projectId, teamId, [...failed.keys()], [...failed.values()], now, retryDelayMs(1), unlinked],
    );
    for (const r of kept.rows) {
      const error = failed.get(r.link_id);
      if (error) await emitEvent(q, teamId, 'link.stale', { link: { id: r.link_id, project: projectId, kind: r.kind, target: r.target }, error: `The project was deleted; unlinking failed and is retried: ${error}` });
    }
    const late = kept.rows.filter((r) => !outcomes.some((o) => o.id === r.link_id));
    return [...outcomes, ...late.map((r): UnlinkOutcome => ({ id: r.link_id, kind: r.kind, target: r.target, state: 'pending', error: null }))];
  }

  /** The delete did not happen after all: the links the peers dropped are out of date again, re-sent by the links job. */
  async relinkAfterFailedDelete(outcomes: UnlinkOutcome[]): Promise<void> {
    const dropped = outcomes.filter((o) => o.state === 'unlinked').map((o) => o.id);
    if (dropped.length === 0) return;
    await this.#ctx.db.query('UPDATE project_links SET synced_key = NULL WHERE id = ANY($1::text[])', [dropped]).catch((err: unknown) => {
      this.#ctx.log.error({ err, links: dropped }, 'links unlinked for a delete that failed could not be marked for re-linking');
    });
  }

  /** The links job: removals whose retry is due and whose target no project links again; the number done. */
  async retryDue(): Promise<number> {
    const now = this.#ctx.clock.now();
    const gaveUp = await this.#ctx.db.query<RemovalRow>('DELETE FROM link_removals WHERE created_at < $1 RETURNING *', [new Date(now - GIVE_UP_MS)]);
    for (const r of gaveUp.rows) this.#ctx.log.error({ link: r.link_id, project: Number(r.project_id), kind: r.kind, target: r.target }, 'gave up unlinking a link of a deleted project after 7 days; remove it on the peer by hand');
    const lease = new Date(now + this.#ctx.config.peerTimeoutMs + 1000);
    const claimed = await this.#ctx.db.query<RemovalRow>(
      `UPDATE link_removals r SET leased_until = $1 FROM (
         SELECT r.kind, r.target FROM link_removals r
          WHERE (r.next_attempt_at IS NULL OR r.next_attempt_at <= $2) AND (r.leased_until IS NULL OR r.leased_until <= $2)
            AND NOT EXISTS (SELECT 1 FROM project_links l WHERE l.kind = r.kind AND l.target = r.target)
          ORDER BY r.next_attempt_at NULLS FIRST LIMIT ${BATCH} FOR UPDATE OF r SKIP LOCKED
       ) c WHERE r.kind = c.kind AND r.target = c.target RETURNING r.*`,
      [lease, new Date(now)],
    );
    const done = await mapLimit(claimed.rows, CONCURRENCY, async (r) => {
      try {
        await removeOnPeer(this.#peers, r.kind, r.target);
        await this.#ctx.db.query('DELETE FROM link_removals WHERE kind = $1 AND target = $2 AND link_id = $3', [r.kind, r.target, r.link_id]);
        return true;
      } catch (e) {
        if (!isSvcError(e)) this.#ctx.log.error({ err: e, link: r.link_id }, 'unlink retry failed');
        await this.#ctx.db.query(
          'UPDATE link_removals SET attempts = attempts + 1, last_error = $4, next_attempt_at = $5, leased_until = NULL WHERE kind = $1 AND target = $2 AND link_id = $3',
          [r.kind, r.target, r.link_id, errorText(e), new Date(this.#ctx.clock.now() + retryDelayMs(r.attempts + 1))],
        );
        return false;
      }
    });
    return done.filter(Boolean).length;
  }
}

/**
 * Linking a target that still has a removal pending: hold the removal (a lease) while the peer is called, so that no
 * retry unlinks it under the new link; the link drops it once the peer took the link (dropRemoval), and on failure the
 * lease lapses and the removal goes on. False when a retry is calling the peer right now.
 */
export async function holdRemoval(q: Queryable, kind: LinkKind, target: string, now: number, until: number): Promise<boolean> {
  const r = await q.query<{ held: boolean }>(
    `UPDATE link_removals SET leased_until = CASE WHEN leased_until IS NULL OR leased_until <= $3 THEN $4 ELSE leased_until END
      WHERE kind = $1 AND target = $2 RETURNING leased_until = $4 AS held`,
    [kind, target, new Date(now), new Date(until)],
  );
  return r.rows[0]?.held ?? true;
}

export async function dropRemoval(q: Queryable, kind: LinkKind, target: string): Promise<void> {
  await q.query('DELETE FROM link_removals WHERE kind = $1 AND target = $2', [kind, target]);
}
