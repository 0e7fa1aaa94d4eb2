/**
 * The `links.deploys` job (leader only, every minute): reads the deploys of every linked app and alias, 8 links at
 * a time, and creates a release per deploy, `<app>@<release number>` or `<alias>@<deploy id>`, whose time is the
 * deploy's (the earliest, when a release is seen twice). Each link keeps a watermark, the newest deploy time read;
 * deploys at or after it are read again each poll. Creating is an insert that does nothing for a known release,
 * so a poll repeated after a restart, or run by two nodes at once, creates each release once. For an alias, a newer
 * deploy also moves the release its pages report (project_links.release); the links job then re-sends the script.
 */
import type { AppContext } from '../../core/context.ts';
import type { Job } from '../../core/scheduler.ts';
import { isSvcError } from '../../core/errors.ts';
import { KIND } from './link-kinds.ts';
import type { LinkRow } from './link-store.ts';
import { mapLimit } from './map-limit.ts';
import type { Peers } from './peers.ts';
import { newestRelease, readDeploys, releaseOf, type ReadDeploy } from './read-deploys.ts';

export const DEPLOY_POLL_JOB = 'links.deploys';
const CONCURRENCY = 8;

export interface PollResult {
  links: number;
  releases: number;
  failed: number;
}

export function deployPollJob(peers: Peers): Job {
  return { name: DEPLOY_POLL_JOB, everyMs: 60_000, run: async (ctx) => void (await pollDeploys(ctx, peers)) };
}

export async function pollDeploys(ctx: AppContext, peers: Peers): Promise<PollResult> {
  const links = (await ctx.db.query<LinkRow>('SELECT * FROM project_links ORDER BY polled_at NULLS FIRST, id')).rows.filter((l) => peers.has(KIND[l.kind].peer));
  const counts = await mapLimit(links, CONCURRENCY, (l) => pollLink(ctx, peers, l));
  return { links: links.length, releases: counts.reduce((a, n) => a + Math.max(n, 0), 0), failed: counts.filter((n) => n < 0).length };
}

/** The releases this poll of one link created, or -1 when the peer could not be read. */
async function pollLink(ctx: AppContext, peers: Peers, l: LinkRow): Promise<number> {
  let deploys: ReadDeploy[];
  try {
    deploys = await readDeploys(peers.get(KIND[l.kind].peer), l.kind, l.target, l.watermark);
  } catch (err) {
    if (isSvcError(err)) ctx.log.warn({ link: l.id, err: err.message }, 'deploys of a linked app or alias could not be read');
    else ctx.log.error({ link: l.id, err }, 'deploy poll failed');
    return -1;
  }
  const releases = new Map<string, Date>();
  let newest = l.watermark;
  for (const d of deploys) {
    if (newest === null || d.at > newest) newest = d.at;
    if (l.watermark !== null && d.at < l.watermark) continue;
    const version = releaseOf(l.kind, l.target, d);
    const known = version === null ? undefined : releases.get(version);
    if (version !== null && (known === undefined || d.at < known)) releases.set(version, d.at);
  }
  const created = await ctx.db.query<{ inserted: boolean }>(
    `INSERT INTO releases (project_id, version, registered, created_at) SELECT $1, v, true, t FROM unnest($2::text[], $3::timestamptz[]) AS x(v, t)
     ON CONFLICT (project_id, version) DO UPDATE SET registered = true, created_at = LEAST(releases.created_at, EXCLUDED.created_at)
     RETURNING (xmax = 0) AS inserted`,
    [l.project_id, [...releases.keys()], [...releases.values()]],
  );
  await ctx.db.query('UPDATE project_links SET watermark = $2, polled_at = $3 WHERE id = $1', [l.id, newest, new Date(ctx.clock.now())]);
  const served = l.kind === 'alias' ? newestRelease(l.kind, l.target, deploys) : null;
  // Only forward: an older deploy read again (or by a slower node) never takes the pages back.
  if (served) await ctx.db.query('UPDATE project_links SET release = $2, release_at = $3 WHERE id = $1 AND (release_at IS NULL OR release_at < $3)', [l.id, served.release, served.at]);
  return created.rows.filter((r) => r.inserted).length;
}
