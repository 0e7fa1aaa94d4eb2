/**
 * Error-tracking projects: create, list, load, update, delete. Used by the REST routes, the MCP tools and search
 * alike, with the same Principal. Team readers (viewers included) see a team's projects and their DSNs; members
 * create and change them; deleting one (with its issues and events) needs the team's manage right.
 *
 * Every change invalidates the ingest's caches (core/project-caches.ts) on every node, so a new events-per-minute
 * limit, scrub list or spike threshold applies within milliseconds and a deleted project's keys stop at once.
 */
import type { AppContext } from '../../core/context.ts';
import { readableTeams, requireTeam, type Need, type Principal } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { randomHex } from '../../core/ids.ts';
import { listEnvelope, type ListParams } from '../../core/http/list.ts';
import { CLIENT_KEYS_CACHE, PROJECTS_CACHE } from '../../core/project-caches.ts';
import { announceEvents } from '../../core/outbox.ts';
import type { LinkRemovals, UnlinkOutcome } from '../links/link-removals.ts';
import { PROJECT_COLUMNS_SETTABLE, type ProjectInput } from './project-input.ts';
import { PROJECT_COLUMNS, parseNumericId, projectView, slugify, type ProjectRow } from './project-view.ts';

export type ProjectView = ReturnType<typeof projectView>;

/** A project the caller may `need` on; project_not_found also when it lives in a team the caller is not in. */
export async function loadProject(ctx: AppContext, p: Principal, rawId: string | number, need: Need = 'read'): Promise<ProjectRow> {
  const id = typeof rawId === 'number' ? rawId : parseNumericId(rawId);
  if (id === undefined) throw svcError('invalid_project_id', `Project ids are numeric; "${String(rawId).slice(0, 40)}" is not one.`);
  const r = await ctx.db.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.id = $1`, [id]);
  const row = r.rows[0];
  if (!row || (!p.isSuperuser && !p.teams.has(row.team_id))) throw svcError('project_not_found', `The project ${id} does not exist.`);
  requireTeam(p, row.team_id, need);
  return row;
}

export async function createProject(ctx: AppContext, p: Principal, teamId: string, input: ProjectInput & { name: string }): Promise<ProjectView> {
  requireTeam(p, teamId, 'write');
  const slug = input.slug ?? slugify(input.name);
  const publicKey = randomHex(16);
  const now = new Date(ctx.clock.now());
  const row = await ctx.db.tx(async (q) => {
    const r = await q.query<{ id: number }>(
      `INSERT INTO projects (team_id, name, slug, platform, events_per_minute, spike_threshold, scrub_keys, retention_days, created_at)
       VALUES ($1, $2, $3, $4, COALESCE($5, 600), COALESCE($6, 100), COALESCE($7::text[], '{}'), COALESCE($8, 30), $9)
       ON CONFLICT (team_id, slug) DO NOTHING RETURNING id`,
      [teamId, input.name, slug, input.platform ?? null, input.events_per_minute ?? null, input.spike_threshold ?? null, input.scrub_keys ?? null, input.retention_days ?? null, now],
    );
    if (!r.rows[0]) throw svcError('conflict', `The team already has a project with the slug "${slug}".`, { slug });
    await q.query('INSERT INTO project_keys (public_key, project_id, created_at) VALUES ($1, $2, $3)', [publicKey, r.rows[0].id, now]);
    return (await q.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.id = $1`, [r.rows[0].id])).rows[0];
  });
  // A node may hold a negative answer for this project id or key from before it existed.
  await ctx.caches.invalidate(PROJECTS_CACHE, String(row.id));
  await ctx.caches.invalidate(CLIENT_KEYS_CACHE, publicKey);
  return projectView(row, ctx.config.publicUrl);
}

export interface ProjectFilter {
  teamId?: string;
  slug?: string;
}

export async function listProjects(ctx: AppContext, p: Principal, filter: ProjectFilter, page: ListParams): Promise<{ items: ProjectView[]; next_cursor: string | null }> {
  if (filter.teamId) requireTeam(p, filter.teamId, 'read');
  const visible = readableTeams(p);
  const params: unknown[] = [page.limit + 1];
  const where: string[] = [];
  if (filter.teamId) where.push(`p.team_id = $${params.push(filter.teamId)}`);
  if (filter.slug) where.push(`p.slug = $${params.push(filter.slug)}`);
  if (visible) where.push(`p.team_id = ANY($${params.push(visible)})`);
  if (page.after) where.push(`p.id > $${params.push(Number(page.after[0]))}`);
  const r = await ctx.db.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects p ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY p.id LIMIT $1`,
    params,
  );
  return listEnvelope(r.rows, page.limit, (row) => [row.id], (row) => projectView(row, ctx.config.publicUrl));
}

export async function updateProject(ctx: AppContext, p: Principal, rawId: string | number, input: ProjectInput): Promise<ProjectView> {
  const project = await loadProject(ctx, p, rawId, 'write');
  const sets: string[] = [];
  const params: unknown[] = [project.id];
  for (const col of PROJECT_COLUMNS_SETTABLE) {
    const v = input[col];
    if (v === undefined) continue;
    sets.push(`${col} = $${params.push(col === 'scrub_keys' ? [...new Set(v as string[])] : v)}${col === 'scrub_keys' ? '::text[]' : ''}`);
  }
  if (sets.length === 0) throw svcError('validation_failed', 'Name at least one field to change.');
  try {
    await ctx.db.query(`UPDATE projects SET ${sets.join(', ')} WHERE id = $1`, params);
  } catch (e) {
    if ((e as { code?: string }).code === '23505') throw svcError('conflict', `The team already has a project with the slug "${input.slug}".`, { slug: input.slug });
    throw e;
  }
  await ctx.caches.invalidate(PROJECTS_CACHE, String(project.id));
  return projectView(await loadProject(ctx, p, project.id), ctx.config.publicUrl);
}

/** Unlinking a project's apps and aliases on their peers (links/link-removals.ts), as deleting it does first. */
export type ProjectUnlink = Pick<LinkRemovals, 'unlinkPeers' | 'keepPending' | 'relinkAfterFailedDelete'>;

/**
 * Deletes a project with its keys, issues, events and releases; its DSNs are refused at once on every node. Its
 * links are unlinked on their peers first, best effort and bounded by the peer timeout: the delete never waits on a
 * peer beyond that, and a link the peer did not confirm is kept and retried by the links job (docs/links.md).
 */
export async function deleteProject(ctx: AppContext, p: Principal, rawId: string | number, unlink?: ProjectUnlink): Promise<ProjectView & { links: UnlinkOutcome[] }> {
  const project = await loadProject(ctx, p, rawId, 'manage');
  const unlinked = unlink ? await unlink.unlinkPeers(project.id) : [];
  const { keys, links } = await ctx.db.tx(async (q) => {
    const k = await q.query<{ public_key: string }>('SELECT public_key FROM project_keys WHERE project_id = $1', [project.id]);
    const outcomes = unlink ? await unlink.keepPending(q, project.id, project.team_id, unlinked) : [];
    await q.query('DELETE FROM projects WHERE id = $1', [project.id]);
    return { keys: k.rows.map((x) => x.public_key), links: outcomes };
  }).catch(async (e: unknown) => {
    await unlink?.relinkAfterFailedDelete(unlinked);
    throw e;
  });
  await ctx.caches.invalidate(PROJECTS_CACHE, String(project.id));
  for (const key of keys) await ctx.caches.invalidate(CLIENT_KEYS_CACHE, key);
  if (links.some((l) => l.error !== null)) await announceEvents(ctx.counters);
  return { ...projectView(project, ctx.config.publicUrl), links };
}
