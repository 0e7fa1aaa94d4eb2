/** The project_links rows (migrations/*-project-links.sql) and how the API shows them. */
import { rfc3339 } from '../../core/clock.ts';
import type { Queryable } from '../../core/db/db.ts';
import type { LinkKind } from './link-kinds.ts';

export interface LinkRow {
  id: string;
  project_id: number;
  kind: LinkKind;
  target: string;
  environment: string | null;
  synced_key: string | null;
  state: 'ok' | 'stale';
  last_error: string | null;
  attempts: number;
  next_attempt_at: Date | null;
  restart_requested: boolean;
  /** Aliases: the release their pages should report, that deploy's time, and the release the peer last accepted. */
  release: string | null;
  release_at: Date | null;
  synced_release: string | null;
  leased_until: Date | null;
  watermark: Date | null;
  polled_at: Date | null;
  created_at: Date;
}

export function linkView(l: LinkRow) {
  return {
    id: l.id,
    project: Number(l.project_id),
    kind: l.kind,
    target: l.target,
    environment: l.environment,
    state: l.state,
    last_error: l.last_error,
    restart_requested: l.restart_requested,
    release: l.release,
    last_deploy_at: rfc3339(l.watermark),
    polled_at: rfc3339(l.polled_at),
    created_at: rfc3339(l.created_at),
  };
}

export type LinkView = ReturnType<typeof linkView>;

export async function findLink(q: Queryable, kind: LinkKind, target: string): Promise<LinkRow | undefined> {
  return (await q.query<LinkRow>('SELECT * FROM project_links WHERE kind = $1 AND target = $2', [kind, target])).rows[0];
}

export async function projectLinks(q: Queryable, projectId: number): Promise<LinkRow[]> {
  return (await q.query<LinkRow>('SELECT * FROM project_links WHERE project_id = $1 ORDER BY created_at, id', [projectId])).rows;
}

/** In the rotation's transaction: restart every linked app once it has the new DSN (link-sync.ts). */
export async function requestRestarts(q: Queryable, projectId: number): Promise<void> {
  await q.query(`UPDATE project_links SET restart_requested = true WHERE project_id = $1 AND kind = 'app'`, [projectId]);
}
