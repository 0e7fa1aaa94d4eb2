/**
 * What the ingest fast path reads from Postgres, cached on every node: projects by numeric id, client keys by
 * public key, and teams' monthly error-event limits. The control plane invalidates the caches on every change
 * (core/project-caches.ts, core/team-limits.ts), so a created project or a revoked key is seen within ms.
 *
 * Negative answers (no such project, no such key) are cached too, but only for a few seconds, so that a
 * flood of requests for an unknown project or key does not reach the database each time.
 */
import type { AppContext } from '../core/context.ts';
import { LookupCache } from '../core/cache.ts';
import { CLIENT_KEYS_CACHE, PROJECTS_CACHE } from '../core/project-caches.ts';
import { readTeamLimits, TEAM_LIMITS_CACHE } from '../core/team-limits.ts';

export interface IngestProject {
  id: number;
  teamId: string;
  name: string;
  slug: string;
  eventsPerMinute: number;
  spikeThreshold: number;
  scrubKeys: string[];
  retentionDays: number;
}

export interface ClientKeyRecord {
  projectId: number;
  active: boolean;
}

interface Cached<V> {
  value: V | null;
  at: number;
}

const POSITIVE_TTL_MS = 60_000;
const NEGATIVE_TTL_MS = 5_000;

interface ProjectRow {
  id: number;
  team_id: string;
  name: string;
  slug: string;
  events_per_minute: number;
  spike_threshold: number;
  scrub_keys: string[];
  retention_days: number;
}

export class ProjectLookup {
  #ctx: AppContext;
  #projects: LookupCache<Cached<IngestProject>>;
  #keys: LookupCache<Cached<ClientKeyRecord>>;
  #limits: LookupCache<number | null>;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#projects = ctx.caches.register(new LookupCache<Cached<IngestProject>>(PROJECTS_CACHE, POSITIVE_TTL_MS));
    this.#keys = ctx.caches.register(new LookupCache<Cached<ClientKeyRecord>>(CLIENT_KEYS_CACHE, POSITIVE_TTL_MS));
    this.#limits = ctx.caches.register(new LookupCache<number | null>(TEAM_LIMITS_CACHE, POSITIVE_TTL_MS));
  }

  project(id: number): Promise<IngestProject | null> {
    return this.#get(this.#projects, String(id), async () => {
      const r = await this.#ctx.db.query<ProjectRow>(
        'SELECT id, team_id, name, slug, events_per_minute, spike_threshold, scrub_keys, retention_days FROM projects WHERE id = $1',
        [id],
      );
      const p = r.rows[0];
      if (!p) return null;
      return {
        id: p.id, teamId: p.team_id, name: p.name, slug: p.slug, eventsPerMinute: p.events_per_minute,
        spikeThreshold: p.spike_threshold, scrubKeys: p.scrub_keys ?? [], retentionDays: p.retention_days,
      };
    });
  }

  clientKey(publicKey: string): Promise<ClientKeyRecord | null> {
    return this.#get(this.#keys, publicKey, async () => {
      const r = await this.#ctx.db.query<{ project_id: number; active: boolean }>('SELECT project_id, active FROM project_keys WHERE public_key = $1', [publicKey]);
      const k = r.rows[0];
      return k ? { projectId: k.project_id, active: k.active } : null;
    });
  }

  /** The team's monthly `errors.events` limit, or null when unlimited. */
  async teamMonthlyEvents(teamId: string): Promise<number | null> {
    return this.#limits.get(teamId, async () => {
      const limits = await readTeamLimits(this.#ctx.db, teamId);
      const n = limits['errors.events'];
      return typeof n === 'number' ? n : null;
    });
  }

  async #get<V>(cache: LookupCache<Cached<V>>, key: string, load: () => Promise<V | null>): Promise<V | null> {
    const loader = async () => ({ value: await load(), at: Date.now() });
    let hit = await cache.get(key, loader);
    if (hit.value === null && Date.now() - hit.at > NEGATIVE_TTL_MS) {
      cache.drop(key);
      hit = await cache.get(key, loader);
    }
    return hit.value;
  }
}
