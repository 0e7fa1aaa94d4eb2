/**
 * Keeps every link's peer on the project's current DSN (and an alias's script on its newest release). A link is out
 * of date while the key the peer last accepted (synced_key) differs from the project's active key, while an alias's
 * accepted release differs from the one the deploy poller found, or while a restart the person asked for is pending: that is
 * the outbox of re-links, written by the rotation's own transaction (the new key, the restart flags), so a node
 * that stops half way loses nothing. Rotation syncs its project's links at once (syncProject); the `links.sync` job
 * (leader only, every 5 s) retries the rest with backoff until each succeeds, and shows them `stale` meanwhile.
 * Claims take a lease (leased_until, past the attempt's time limit) under FOR UPDATE SKIP LOCKED, and every claim,
 * the rotation's included, skips a leased link, so two passes never call a peer for the same link at once. An app is
 * restarted only while the key it was just given is still the active one, and the request is cleared only then: a
 * rotation that lands during a pass leaves the restart to the next pass, after the newest DSN, so the app restarts
 * once (docs/links.md).
 */
import type { AppContext } from '../../core/context.ts';
import type { Job } from '../../core/scheduler.ts';
import { isSvcError } from '../../core/errors.ts';
import { announceEvents, emitEvent } from '../../core/outbox.ts';
import { buildDsn } from '../projects/project-view.ts';
import { expectDone } from './answer-of-peer.ts';
import { KIND } from './link-kinds.ts';
import type { LinkRow } from './link-store.ts';
import type { LinkRemovals } from './link-removals.ts';
import { mapLimit } from './map-limit.ts';
import type { Peers } from './peers.ts';

export const LINK_SYNC_JOB = 'links.sync';
const CONCURRENCY = 8;
const BATCH = 64;
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 10 * 60_000;

type Claimed = LinkRow & { active_key: string };

export function retryDelayMs(attempts: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
}

export class LinkSync {
  #ctx: AppContext;
  #peers: Peers;

  constructor(ctx: AppContext, peers: Peers) {
    this.#ctx = ctx;
    this.#peers = peers;
  }

  /** The links job: due re-links, then the due unlinks of deleted projects (link-removals.ts). */
  job(removals: Pick<LinkRemovals, 'retryDue'>): Job {
    return {
      name: LINK_SYNC_JOB,
      everyMs: 5_000,
      run: async () => {
        await this.syncDue();
        await removals.retryDue();
      },
    };
  }

  /** Every out-of-date link whose retry is due; the number synced. */
  async syncDue(): Promise<number> {
    const claimed = await this.#claim('AND (l.next_attempt_at IS NULL OR l.next_attempt_at <= $2)', []);
    return (await mapLimit(claimed, CONCURRENCY, (l) => this.#sync(l))).filter(Boolean).length;
  }

  /** The project's out-of-date links, now (after a rotation), whatever their retry time; a leased one is left to its pass. */
  async syncProject(projectId: number): Promise<void> {
    const claimed = await this.#claim('AND l.project_id = $3', [projectId]);
    await mapLimit(claimed, CONCURRENCY, (l) => this.#sync(l));
  }

  async #claim(filter: string, extra: unknown[]): Promise<Claimed[]> {
    // Past the time two peer calls may take: a node that dies mid-attempt leaves the link to the next pass.
    const now = this.#ctx.clock.now();
    const lease = new Date(now + this.#ctx.config.peerTimeoutMs * 3 + 1000);
    const r = await this.#ctx.db.query<Claimed>(
      `UPDATE project_links l SET leased_until = $1 FROM (
         SELECT l.id, k.public_key AS active_key FROM project_links l
           JOIN LATERAL (SELECT k.public_key FROM project_keys k WHERE k.project_id = l.project_id AND k.active ORDER BY k.created_at DESC LIMIT 1) k ON true
          WHERE (l.synced_key IS DISTINCT FROM k.public_key OR l.synced_release IS DISTINCT FROM l.release OR l.restart_requested) AND (l.leased_until IS NULL OR l.leased_until <= $2) ${filter}
          ORDER BY l.next_attempt_at NULLS FIRST LIMIT ${BATCH} FOR UPDATE OF l SKIP LOCKED
       ) c WHERE l.id = c.id RETURNING l.*, c.active_key`,
      [lease, new Date(now), ...extra],
    );
    return r.rows;
  }

  async #sync(l: Claimed): Promise<boolean> {
    const k = KIND[l.kind];
    const t = { peer: k.peer, label: k.label(l.target) };
    try {
      const peer = this.#peers.get(k.peer);
      const projectId = Number(l.project_id);
      if (l.synced_key !== l.active_key || l.synced_release !== l.release) {
        const subject = { projectId, publicKey: l.active_key, dsn: buildDsn(this.#ctx.config.publicUrl, l.active_key, projectId), environment: l.environment, release: l.release };
        expectDone(t, await peer.call({ method: 'PUT', path: k.linkPath(l.target), body: k.payload(l.target, subject, this.#ctx.config.publicUrl) }));
        await this.#ctx.db.query('UPDATE project_links SET synced_key = $2, synced_release = $3 WHERE id = $1', [l.id, l.active_key, l.release]);
      }
      // A restart with a key rotated away meanwhile would be wasted: the next pass sends the new key, then restarts.
      const current = await this.#stillActive(l.active_key);
      if (l.restart_requested && k.restartPath && current) expectDone(t, await peer.call({ method: 'POST', path: k.restartPath(l.target) }));
      await this.#ctx.db.query(
        `UPDATE project_links SET state = 'ok', last_error = NULL, attempts = 0, next_attempt_at = NULL, leased_until = NULL,
           restart_requested = restart_requested AND NOT $2 WHERE id = $1`,
        [l.id, current],
      );
      return true;
    } catch (e) {
      if (!isSvcError(e)) this.#ctx.log.error({ err: e, link: l.id }, 'link sync failed');
      await this.#markStale(l, (e as Error).message.slice(0, 500));
      return false;
    }
  }

  async #stillActive(publicKey: string): Promise<boolean> {
    return (await this.#ctx.db.query('SELECT 1 FROM project_keys WHERE public_key = $1 AND active', [publicKey])).rowCount === 1;
  }

  /** Records the failure and its next attempt; the team is told once, when the link turns stale (`link.stale`). */
  async #markStale(l: Claimed, error: string): Promise<void> {
    const attempts = l.attempts + 1;
    const turned = await this.#ctx.db.tx(async (q) => {
      const r = await q.query<{ team_id: string }>(
        `UPDATE project_links l SET state = 'stale', last_error = $2, attempts = $3, next_attempt_at = $4, leased_until = NULL FROM projects p
          WHERE l.id = $1 AND p.id = l.project_id RETURNING p.team_id`,
        [l.id, error, attempts, new Date(this.#ctx.clock.now() + retryDelayMs(attempts))],
      );
      if (l.state !== 'ok' || !r.rows[0]) return false;
      await emitEvent(q, r.rows[0].team_id, 'link.stale', { link: { id: l.id, project: Number(l.project_id), kind: l.kind, target: l.target }, error });
      return true;
    });
    if (turned) await announceEvents(this.#ctx.counters);
  }
}
