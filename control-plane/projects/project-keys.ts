/**
 * A project's client keys (the public key of a DSN). Rotating creates a new key and revokes every active one in
 * the same transaction; the ingest's key cache is invalidated on every node right after the commit, so the old DSN
 * is refused (403 unknown_client_key) at once. Team readers see the keys (the DSN is not a secret: browsers ship it).
 */
import type { AppContext } from '../../core/context.ts';
import type { Principal } from '../../core/auth/principal.ts';
import { rfc3339 } from '../../core/clock.ts';
import { randomHex } from '../../core/ids.ts';
import { listEnvelope, type ListParams } from '../../core/http/list.ts';
import { CLIENT_KEYS_CACHE } from '../../core/project-caches.ts';
import { loadProject } from './project-service.ts';
import { buildDsn } from './project-view.ts';
import { requestRestarts } from '../links/link-store.ts';

interface KeyRow {
  public_key: string;
  project_id: number;
  active: boolean;
  created_at: Date;
  revoked_at: Date | null;
}

export interface ProjectKeyView {
  public_key: string;
  project: number;
  dsn: string;
  active: boolean;
  created_at: string | null;
  revoked_at: string | null;
}

function keyView(k: KeyRow, publicUrl: string): ProjectKeyView {
  return {
    public_key: k.public_key,
    project: k.project_id,
    dsn: buildDsn(publicUrl, k.public_key, k.project_id),
    active: k.active,
    created_at: rfc3339(k.created_at),
    revoked_at: rfc3339(k.revoked_at),
  };
}

/** The project's keys, newest first (the active one, then the revoked ones). */
export async function listProjectKeys(ctx: AppContext, p: Principal, projectId: string | number, page: ListParams): Promise<{ items: ProjectKeyView[]; next_cursor: string | null }> {
  const project = await loadProject(ctx, p, projectId, 'read');
  const params: unknown[] = [project.id, page.limit + 1];
  const after = page.after ? `AND (created_at, public_key) < ($${params.push(String(page.after[0]))}::timestamptz, $${params.push(String(page.after[1]))})` : '';
  const r = await ctx.db.query<KeyRow>(
    `SELECT public_key, project_id, active, created_at, revoked_at FROM project_keys WHERE project_id = $1 ${after}
     ORDER BY created_at DESC, public_key DESC LIMIT $2`,
    params,
  );
  return listEnvelope(r.rows, page.limit, (k) => [k.created_at.toISOString(), k.public_key], (k) => keyView(k, ctx.config.publicUrl));
}

/**
 * A new DSN for the project; every previous key is revoked and refused from now on, on every node. Linked apps and
 * aliases are out of date from this commit on (links/link-sync.ts re-links them); `restart` also restarts the apps.
 */
export async function rotateProjectKey(ctx: AppContext, p: Principal, projectId: string | number, opts: { restart?: boolean } = {}): Promise<ProjectKeyView & { revoked: string[] }> {
  const project = await loadProject(ctx, p, projectId, 'write');
  const now = new Date(ctx.clock.now());
  const { created, revoked } = await ctx.db.tx(async (q) => {
    // Lock the project row so that two rotations at once leave exactly one active key.
    await q.query('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [project.id]);
    const old = await q.query<{ public_key: string }>(
      'UPDATE project_keys SET active = false, revoked_at = $2 WHERE project_id = $1 AND active RETURNING public_key',
      [project.id, now],
    );
    const k = await q.query<KeyRow>(
      'INSERT INTO project_keys (public_key, project_id, active, created_at) VALUES ($1, $2, true, $3) RETURNING public_key, project_id, active, created_at, revoked_at',
      [randomHex(16), project.id, now],
    );
    if (opts.restart) await requestRestarts(q, project.id);
    return { created: k.rows[0], revoked: old.rows.map((r) => r.public_key) };
  });
  for (const key of revoked) await ctx.caches.invalidate(CLIENT_KEYS_CACHE, key);
  await ctx.caches.invalidate(CLIENT_KEYS_CACHE, created.public_key);
  return { ...keyView(created, ctx.config.publicUrl), revoked };
}
