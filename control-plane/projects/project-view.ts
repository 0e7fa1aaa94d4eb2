/**
 * Projects as the API shows them, with the DSN an SDK is given:
 * `{scheme}://{public_key}@{host}[:port]{path}/{project_id}` built from the public URL of the instance
 * (SVC_PUBLIC_URL), so that SDKs post to `{public URL}/api/{project_id}/envelope/`.
 */
import { rfc3339 } from '../../core/clock.ts';

export interface ProjectRow {
  id: number;
  team_id: string;
  name: string;
  slug: string;
  platform: string | null;
  events_per_minute: number;
  spike_threshold: number;
  scrub_keys: string[];
  retention_days: number;
  created_at: Date;
  /** The newest active public key (joined in by the queries). */
  public_key: string | null;
}

/** The SELECT list that gives a ProjectRow (projects aliased `p`). */
export const PROJECT_COLUMNS = `p.*, (SELECT k.public_key FROM project_keys k WHERE k.project_id = p.id AND k.active
  ORDER BY k.created_at DESC LIMIT 1) AS public_key`;

/** The DSN of a public key: the public URL with the key as user name and the project id as last path segment. */
export function buildDsn(publicUrl: string, publicKey: string, projectId: number): string {
  const u = new URL(publicUrl);
  const path = u.pathname.replace(/\/+$/, '');
  return `${u.protocol}//${encodeURIComponent(publicKey)}@${u.host}${path}/${projectId}`;
}

export function projectView(p: ProjectRow, publicUrl: string) {
  return {
    id: p.id,
    team: p.team_id,
    name: p.name,
    slug: p.slug,
    platform: p.platform,
    dsn: p.public_key ? buildDsn(publicUrl, p.public_key, p.id) : null,
    public_key: p.public_key,
    events_per_minute: p.events_per_minute,
    spike_threshold: p.spike_threshold,
    scrub_keys: p.scrub_keys,
    retention_days: p.retention_days,
    created_at: rfc3339(p.created_at),
  };
}

/** A slug from a free-text name: lowercase letters, digits and hyphens, at most 50 characters. */
export function slugify(name: string): string {
  const s = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
  return s === '' ? 'project' : s;
}

/** Numeric ids in paths: a positive integer that fits a bigint, else undefined. */
export function parseNumericId(raw: string): number | undefined {
  if (!/^[1-9]\d{0,15}$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}
