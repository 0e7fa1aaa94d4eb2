/**
 * Keeps the limit store's month totals at least as high as usage_records says (LimitStore.seed, which never
 * lowers a total). A node seeds a key (and its team, when the team has `ai.tokens`) before its first metered call
 * in a month, again when the key's limits (or the team's) change, and at most every RESEED_MS after that. This
 * repairs a store that lost its data (Redis restarted without persistence; a single node restarted on memory
 * counters) and counts the calls a key made while it had no limits (unmetered calls touch no counters): the guard
 * calls forget() on such calls, so the key is seeded again when it is metered again. A seed made before the store
 * may have lost writes (LimitStore.lossCount(): a connection to Redis, or to a node of a Redis Cluster, was lost)
 * no longer counts: the key is seeded again on its next call, so what a restarted Redis lost comes back from the
 * records at once rather than within RESEED_MS (docs/limits.md#when-redis-is-down).
 */
import type { Db } from '../../core/db/db.ts';
import type { Logger } from '../../core/logger.ts';
import type { LimitStore, LimitSubject } from '../../core/limits/limit-store.ts';
import { readKeyMonthSpend, readTeamMonthTokens } from '../../core/limits/read-month-spend.ts';

export const RESEED_MS = 10 * 60_000;
const MAX_ENTRIES = 100_000;

interface Seeded {
  /** month + limits signature the seed was made for. */
  tag: string;
  at: number;
  /** The store's lossCount() when the seed began. */
  losses: number;
  done: Promise<void>;
  /** The seed was written (later calls need not wait for anything). */
  seeded: boolean;
}

export class SpendSeeder {
  #db: Db;
  #store: LimitStore;
  #log: Logger;
  #keys = new Map<string, Seeded>();
  #teams = new Map<string, Seeded>();

  constructor(db: Db, store: LimitStore, log: Logger) {
    this.#db = db;
    this.#store = store;
    this.#log = log;
  }

  /** The key made a call that was not metered: seed it again when it is. */
  forget(keyId: string, teamId: string, teamMetered: boolean): void {
    this.#keys.delete(keyId);
    if (!teamMetered) this.#teams.delete(teamId);
  }

  /**
   * `keyTag` names the key's limits (a change means a new seed). Answers undefined when the key (and its team) are
   * seeded already (the usual call: no promise), else a promise that rejects only when the store cannot be written
   * (the caller fails closed; SeedSkipped when the database could not be read: the seed is retried on a later call).
   */
  ensure(s: LimitSubject, keyTag: string): Promise<void> | undefined {
    const now = Date.now();
    const losses = this.#store.lossCount();
    const needTeam = s.teamTokensPerMonth !== undefined;
    const kTag = `${s.month}|${keyTag}`;
    const tTag = `${s.month}|${s.teamTokensPerMonth}`;
    const k = this.#keys.get(s.keyId);
    const t = needTeam ? this.#teams.get(s.teamId) : undefined;
    const keyDone = k !== undefined && k.tag === kTag && now - k.at < RESEED_MS && k.losses === losses;
    const teamDone = !needTeam || (t !== undefined && t.tag === tTag && now - t.at < RESEED_MS && t.losses === losses);
    if (keyDone && teamDone) {
      if (k.seeded && (!t || t.seeded)) return undefined;
      return t ? Promise.all([k.done, t.done]).then(() => {}) : k.done;
    }
    if (this.#keys.size > MAX_ENTRIES) this.#keys.clear();
    if (this.#teams.size > MAX_ENTRIES) this.#teams.clear();
    const done = this.#seed(s, !keyDone, needTeam && !teamDone);
    const entryK: Seeded = { tag: kTag, at: now, losses, done, seeded: false };
    const entryT: Seeded = { tag: tTag, at: now, losses, done, seeded: false };
    if (!keyDone) this.#keys.set(s.keyId, entryK);
    if (needTeam && !teamDone) this.#teams.set(s.teamId, entryT);
    return done.then(
      () => {
        entryK.seeded = true;
        entryT.seeded = true;
      },
      (err: unknown) => {
        if (this.#keys.get(s.keyId) === entryK) this.#keys.delete(s.keyId);
        if (this.#teams.get(s.teamId) === entryT) this.#teams.delete(s.teamId);
        throw err;
      },
    );
  }

  async #seed(s: LimitSubject, key: boolean, team: boolean): Promise<void> {
    let spent;
    try {
      spent = await Promise.all([
        key ? readKeyMonthSpend(this.#db, s.keyId, s.month) : { tokens: 0, dollars: 0 },
        team ? readTeamMonthTokens(this.#db, s.teamId, s.month) : 0,
      ]);
    } catch (err) {
      this.#log.warn({ err, key: s.keyId }, 'month spend could not be read from usage records; limits use the counters alone for now');
      throw new SeedSkipped();
    }
    await this.#store.seed(s, spent[0], spent[1]);
  }
}

/** The database could not be read: not a reason to refuse the call. */
export class SeedSkipped extends Error {
  constructor() {
    super('seed skipped');
  }
}
