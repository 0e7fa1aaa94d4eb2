/**
 * Releases of a project: registered through the API (CI, with a `deploy` token) or first seen in an event's
 * `release`. Registering a version that events already named marks it registered and keeps its place in the order;
 * registering it again updates its ref and link (CI may re-run). The order in which releases became known (their
 * id) decides what "the next release" is for issues resolved in the next release.
 *
 * The list shows each release's first and last seen event times and its new issues: the issues whose first
 * release it is.
 */
import type { AppContext } from '../../core/context.ts';
import type { Principal } from '../../core/auth/principal.ts';
import { rfc3339 } from '../../core/clock.ts';
import { svcError } from '../../core/errors.ts';
import { listEnvelope, type ListParams } from '../../core/http/list.ts';
import { loadProject } from './project-service.ts';

interface ReleaseRow {
  id: number;
  project_id: number;
  version: string;
  registered: boolean;
  ref: string | null;
  url: string | null;
  created_at: Date;
  first_seen: Date | null;
  last_seen: Date | null;
  new_issues: number;
}

export interface ReleaseInput {
  version: string;
  ref?: string;
  url?: string;
  created_at?: string;
}

export const RELEASE_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['version'],
  properties: {
    version: { type: 'string', description: 'The version as SDKs send it in `release` (1 to 250 characters, no control characters).' },
    ref: { type: 'string', maxLength: 200, description: 'Source revision (commit, tag).' },
    url: { type: 'string', maxLength: 2000, description: 'A link: the CI run, the changelog (http or https).' },
    created_at: { type: 'string', description: 'When the release was made (RFC 3339); default now.' },
  },
} as const;

function releaseView(r: ReleaseRow) {
  return {
    version: r.version,
    project: r.project_id,
    registered: r.registered,
    ref: r.ref,
    url: r.url,
    created_at: rfc3339(r.created_at),
    first_seen: rfc3339(r.first_seen),
    last_seen: rfc3339(r.last_seen),
    new_issues: r.new_issues,
  };
}

/** Control characters (C0, DEL, C1) and the Unicode line and paragraph separators. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export function checkReleaseVersion(v: string): string {
  if (v.length < 1 || v.length > 250 || CONTROL.test(v) || v.trim() !== v || v === '.' || v === '..') {
    throw svcError('invalid_release_version', undefined, { version: v.slice(0, 250) });
  }
  return v;
}

function checkLink(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw svcError('validation_failed', 'The release url must be an absolute http or https URL.', { field: 'url' });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw svcError('validation_failed', 'The release url must be an absolute http or https URL.', { field: 'url' });
  return u.toString();
}

function checkTime(raw: string): Date {
  const t = Date.parse(raw);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(raw) || Number.isNaN(t)) {
    throw svcError('validation_failed', 'created_at must be an RFC 3339 time such as 2026-01-15T12:00:00Z.', { field: 'created_at' });
  }
  return new Date(t);
}

const NEW_ISSUES = '(SELECT count(*)::int FROM issues i WHERE i.project_id = r.project_id AND i.first_release = r.version) AS new_issues';

/** Registers (or re-registers) a release; `created` tells whether the version was new to the project. */
export async function registerRelease(ctx: AppContext, p: Principal, projectId: string | number, input: ReleaseInput): Promise<{ release: ReturnType<typeof releaseView>; created: boolean }> {
  const project = await loadProject(ctx, p, projectId, 'deploy');
  const version = checkReleaseVersion(input.version);
  const link = input.url === undefined ? null : checkLink(input.url);
  const createdAt = input.created_at === undefined ? null : checkTime(input.created_at);
  const r = await ctx.db.query<{ id: number; inserted: boolean }>(
    `INSERT INTO releases (project_id, version, registered, ref, url, created_at) VALUES ($1, $2, true, $3, $4, COALESCE($5::timestamptz, $6::timestamptz))
     ON CONFLICT (project_id, version) DO UPDATE SET registered = true, ref = COALESCE(EXCLUDED.ref, releases.ref),
       url = COALESCE(EXCLUDED.url, releases.url), created_at = COALESCE($5::timestamptz, releases.created_at)
     RETURNING id, (xmax = 0) AS inserted`,
    [project.id, version, input.ref ?? null, link, createdAt, new Date(ctx.clock.now())],
  );
  const row = (await ctx.db.query<ReleaseRow>(`SELECT r.*, ${NEW_ISSUES} FROM releases r WHERE r.id = $1`, [r.rows[0].id])).rows[0];
  return { release: releaseView(row), created: r.rows[0].inserted };
}

/** The project's releases, the most recently known first. */
export async function listReleases(ctx: AppContext, p: Principal, projectId: string | number, page: ListParams) {
  const project = await loadProject(ctx, p, projectId, 'read');
  const params: unknown[] = [project.id, page.limit + 1];
  const after = page.after ? `AND r.id < $${params.push(Number(page.after[0]))}` : '';
  const r = await ctx.db.query<ReleaseRow>(
    `SELECT r.*, ${NEW_ISSUES} FROM releases r WHERE r.project_id = $1 ${after} ORDER BY r.id DESC LIMIT $2`,
    params,
  );
  return listEnvelope(r.rows, page.limit, (x) => [x.id], releaseView);
}
