/**
 * Gateway keys as the proxy sees them: a presented secret is hashed (SHA-256, as stored) and looked up through a
 * LookupCache named GATEWAY_KEYS_CACHE, which the control plane invalidates with the hash on every change.
 *
 * Unknown hashes are remembered for a few seconds in a separate bounded map, so that a client retrying with a bad
 * key (or a flood of random keys) costs one query per hash and never evicts good keys from the positive cache.
 * Those negative entries are not invalidated: a new key's secret is random and shown only once, so nobody can
 * have tried it in the seconds before it existed.
 */
import type { AppContext } from '../../core/context.ts';
import { LookupCache } from '../../core/cache.ts';
import { GATEWAY_KEYS_CACHE } from '../../core/ai/cache-names.ts';
import { readKeyLimits, type KeyLimits } from '../../core/ai/key-limits.ts';
import { matchesModel } from '../../core/ai/model-pattern.ts';
import { hashSecret } from '../../core/ids.ts';
import type { CompressionMode } from '../../core/ai/compression-settings.ts';
import { KeyUseRecorder } from './key-use-recorder.ts';
import { isPlaygroundSecret } from '../../core/ai/playground-credential.ts';

export interface GatewayKey {
  id: string;
  teamId: string;
  ownerUserId: string | null;
  name: string;
  /** Exact ids, alias names or `*` patterns; empty = every model. */
  allowedModels: readonly string[];
  limits: KeyLimits;
  logBodies: string;
  /** The key's and its team's compression modes; null inherits (read with the key, so the hot path has them). */
  compression: CompressionMode | null;
  teamCompression: CompressionMode | null;
  /** How long the key keeps its stored responses: `'off'` or `'<n>d'` (core/ai/stored-responses.ts). */
  responseStoreTtl: string;
  /** Whether the key may call `model` (memoised per key: the answer never changes for a cached record). */
  allows(model: string): boolean;
}

interface KeyRow {
  id: string;
  team_id: string;
  owner_user_id: string | null;
  name: string;
  allowed_models: string[];
  limits: unknown;
  log_bodies: string;
  compression?: CompressionMode | null;
  team_compression?: CompressionMode | null;
  response_store_ttl?: string;
}

const NEGATIVE_TTL_MS = 5_000;
const NEGATIVE_MAX = 10_000;
const MISSING = Symbol('missing');
const HASH_MEMO_MAX = 10_000;
const KEY_COLUMNS = `k.id, k.team_id, k.owner_user_id, k.name, k.allowed_models, k.limits, k.log_bodies, k.compression,
  k.response_store_ttl, (SELECT t.compression FROM teams t WHERE t.id = k.team_id) AS team_compression`;

export function toGatewayKey(r: KeyRow): GatewayKey {
  const patterns = r.allowed_models ?? [];
  const memo = new Map<string, boolean>();
  return {
    id: r.id,
    teamId: r.team_id,
    ownerUserId: r.owner_user_id,
    name: r.name,
    allowedModels: patterns,
    limits: readKeyLimits(r.limits),
    logBodies: r.log_bodies,
    compression: r.compression ?? null,
    teamCompression: r.team_compression ?? null,
    responseStoreTtl: r.response_store_ttl ?? 'off',
    allows(model) {
      if (patterns.length === 0) return true;
      let ok = memo.get(model);
      if (ok === undefined) {
        ok = patterns.some((p) => matchesModel(p, model));
        if (memo.size < 1000) memo.set(model, ok);
      }
      return ok;
    },
  };
}

export class KeyStore {
  #ctx: AppContext;
  #cache: LookupCache<GatewayKey>;
  #missing = new Map<string, number>();
  #hashes = new Map<string, string>();
  /** last_used_at of the keys found, written in batches (key-use-recorder.ts). */
  readonly uses: KeyUseRecorder;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.uses = new KeyUseRecorder(ctx);
    this.#cache = ctx.caches.register(new LookupCache<GatewayKey>(GATEWAY_KEYS_CACHE, 60_000));
  }

  /**
   * The key for a presented secret, or undefined when it is unknown, disabled or deleted. A cached key is returned
   * at once (no promise): this runs on every gateway call.
   */
  find(secret: string): GatewayKey | undefined | Promise<GatewayKey | undefined> {
    const hash = this.#hash(secret);
    const cached = this.#cache.peek(hash);
    if (cached) {
      this.uses.touch(cached.id);
      return cached;
    }
    return this.#lookUp(hash, isPlaygroundSecret(secret)).then((k) => {
      if (k) this.uses.touch(k.id);
      return k;
    });
  }

  /** SHA-256 of a secret, memoised: a client presents the same key on every call. */
  #hash(secret: string): string {
    let hash = this.#hashes.get(secret);
    if (hash === undefined) {
      hash = hashSecret(secret);
      if (this.#hashes.size >= HASH_MEMO_MAX) this.#hashes.clear();
      this.#hashes.set(secret, hash);
    }
    return hash;
  }

  /** A playground credential (core/ai/playground-credential.ts) is read each time: it expires within minutes. */
  async #lookUp(hash: string, playground: boolean): Promise<GatewayKey | undefined> {
    const missAt = this.#missing.get(hash);
    if (missAt !== undefined) {
      if (Date.now() - missAt < NEGATIVE_TTL_MS) return undefined;
      this.#missing.delete(hash);
    }
    try {
      return await (playground ? this.#loadPlayground(hash) : this.#cache.get(hash, (h) => this.#load(h)));
    } catch (err) {
      if (err !== MISSING) throw err;
      if (this.#missing.size >= NEGATIVE_MAX) this.#missing.delete(this.#missing.keys().next().value as string);
      this.#missing.set(hash, Date.now());
      return undefined;
    }
  }

  async #load(hash: string): Promise<GatewayKey> {
    const r = await this.#ctx.db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM gateway_keys k WHERE k.key_hash = $1 AND k.deleted_at IS NULL AND NOT k.disabled`,
      [hash],
    );
    // Thrown, not returned: LookupCache keeps only successful loads, so unknown hashes stay out of it.
    if (r.rows.length === 0) throw MISSING;
    return toGatewayKey(r.rows[0]);
  }

  async #loadPlayground(hash: string): Promise<GatewayKey> {
    const r = await this.#ctx.db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM playground_credentials p JOIN gateway_keys k ON k.id = p.key_id
        WHERE p.hash = $1 AND p.expires_at > $2 AND k.deleted_at IS NULL AND NOT k.disabled`,
      [hash, new Date(this.#ctx.clock.now())],
    );
    if (r.rows.length === 0) throw MISSING;
    return toGatewayKey(r.rows[0]);
  }
}
