/**
 * Linking a project to an app or a pages alias, unlinking it, listing its links (docs/links.md).
 *
 * Link: the caller needs `write` on the project here, and the peer's consent there: the peer is asked first with
 * `?dry_run=true` and a short-lived access token of the caller (caller-token.ts), and only then called with our own
 * token. The row is written after the peer took the link; when the peer cannot be read after that call (it may or
 * may not have applied it) the link is removed there again, so a 502 leaves nothing half-linked. An alias's deploys
 * are read first (with our token), for the release its pages report: `<alias>@<newest deploy id>`.
 * Unlink: the peer removes the variable or script (a 404 there means it is gone already); releases stay. A target
 * still being unlinked from a deleted project is held while it is linked again (link-removals.ts).
 */
import type { AppContext } from '../../core/context.ts';
import type { Principal } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { randomHex } from '../../core/ids.ts';
import type { SigningKeyRing } from '../identity/signing-key-ring.ts';
import { loadProject } from '../projects/project-service.ts';
import { buildDsn } from '../projects/project-view.ts';
import { expectDone } from './answer-of-peer.ts';
import { callerToken } from './caller-token.ts';
import { KIND, type LinkKind, type LinkSubject } from './link-kinds.ts';
import { findLink, linkView, projectLinks, type LinkRow, type LinkView } from './link-store.ts';
import type { Peers } from './peers.ts';
import { currentRelease } from './read-deploys.ts';
import { dropRemoval, holdRemoval, removeOnPeer } from './link-removals.ts';

export class LinkService {
  #ctx: AppContext;
  #peers: Peers;
  #ring: SigningKeyRing;

  constructor(ctx: AppContext, peers: Peers, ring: SigningKeyRing) {
    this.#ctx = ctx;
    this.#peers = peers;
    this.#ring = ring;
  }

  async list(p: Principal, projectId: string): Promise<{ items: LinkView[]; next_cursor: null }> {
    const project = await loadProject(this.#ctx, p, projectId, 'read');
    return { items: (await projectLinks(this.#ctx.db, project.id)).map(linkView), next_cursor: null };
  }

  async link(p: Principal, projectId: string, kind: LinkKind, target: string, environment: string | null): Promise<{ link: LinkView; created: boolean }> {
    const project = await loadProject(this.#ctx, p, projectId, 'write');
    const k = KIND[kind];
    const peer = this.#peers.get(k.peer);
    const t = { peer: k.peer, label: k.label(target) };
    const existing = await findLink(this.#ctx.db, kind, target);
    if (existing && Number(existing.project_id) !== project.id) throw taken(kind, target, existing);
    if (!project.public_key) throw svcError('validation_failed', `The project ${project.id} has no active DSN to send; rotate its key first.`);
    const now = this.#ctx.clock.now();
    if (!(await holdRemoval(this.#ctx.db, kind, target, now, now + this.#ctx.config.peerTimeoutMs * 3 + 1000))) {
      throw svcError('conflict', `The ${k.label(target)} is being unlinked from a deleted project right now; try again in a few seconds.`, { kind, target });
    }
    const served = kind === 'alias' ? await currentRelease(peer, kind, target) : null;
    const subject: LinkSubject = {
      projectId: project.id, publicKey: project.public_key, dsn: buildDsn(this.#ctx.config.publicUrl, project.public_key, project.id),
      environment: kind === 'alias' ? environment ?? 'production' : null, release: served?.release ?? null,
    };
    const body = k.payload(target, subject, this.#ctx.config.publicUrl);

    const asked = await peer.call({ method: 'PUT', path: `${k.linkPath(target)}?dry_run=true`, token: await callerToken(this.#ctx, this.#ring, p), body });
    expectDone(t, asked, true);
    try {
      expectDone(t, await peer.call({ method: 'PUT', path: k.linkPath(target), body }));
      const row = await this.#save(project.id, kind, target, subject, served?.at ?? null);
      await dropRemoval(this.#ctx.db, kind, target);
      return { link: linkView(row), created: !existing };
    } catch (e) {
      const code = (e as { code?: string }).code;
      // Another project linked it meanwhile and we overwrote its DSN there: its link is re-sent by the sync job.
      if (code === 'link_taken') await this.#ctx.db.query('UPDATE project_links SET synced_key = NULL WHERE kind = $1 AND target = $2', [kind, target]);
      // Only a link made by this call is taken back; an existing one keeps its state (the sync job retries it).
      else if (!existing && code !== 'peer_error') await peer.call({ method: 'DELETE', path: k.linkPath(target) }).catch(() => {});
      throw e;
    }
  }

  async unlink(p: Principal, projectId: string, kind: LinkKind, target: string): Promise<LinkView> {
    const project = await loadProject(this.#ctx, p, projectId, 'write');
    const k = KIND[kind];
    const link = await findLink(this.#ctx.db, kind, target);
    if (!link || Number(link.project_id) !== project.id) throw svcError('not_found', `The project ${project.id} is not linked to ${k.label(target)}.`, { kind, target });
    await removeOnPeer(this.#peers, kind, target);
    await this.#ctx.db.query('DELETE FROM project_links WHERE id = $1', [link.id]);
    return linkView(link);
  }

  async #save(projectId: number, kind: LinkKind, target: string, s: LinkSubject, releaseAt: Date | null): Promise<LinkRow> {
    const r = await this.#ctx.db.query<LinkRow>(
      `INSERT INTO project_links (id, project_id, kind, target, environment, synced_key, release, release_at, synced_release, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $7, $9)
       ON CONFLICT (kind, target) DO UPDATE SET environment = EXCLUDED.environment, synced_key = EXCLUDED.synced_key, state = 'ok',
         last_error = NULL, attempts = 0, next_attempt_at = NULL, release = EXCLUDED.release, release_at = EXCLUDED.release_at,
         synced_release = EXCLUDED.synced_release
       WHERE project_links.project_id = EXCLUDED.project_id RETURNING *`,
      [`lnk_${randomHex(8)}`, projectId, kind, target, s.environment, s.publicKey, s.release, releaseAt, new Date(this.#ctx.clock.now())],
    );
    if (!r.rows[0]) throw taken(kind, target);
    return r.rows[0];
  }
}

function taken(kind: LinkKind, target: string, existing?: LinkRow) {
  return svcError('link_taken', `The ${KIND[kind].label(target)} is already linked to ${existing ? `the project ${existing.project_id}` : 'another project'}; unlink it there first.`, { kind, target });
}
