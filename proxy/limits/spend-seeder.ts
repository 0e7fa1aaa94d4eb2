/**
 * Keeps the limit store's month totals at least as high as usage_records says (LimitStore.seed, which never
 * lowers a total): before the first metered call of a key in a month on this node, and again whenever the key's
 * cached record (or the team's cached limits) is reloaded, so at most once a minute per key and node. This repairs
 * a store that lost its data (Redis restarted without persistence; a single node restarted on memory counters) and
 * counts the calls a key made while it had no limits (unmetered calls touch no counters). Memos are keyed by the
 * cached objects themselves, so a reload means a new seed.
 */
import type { Db } from '../../core/db/db.ts';
import type { Logger } from '../../core/logger.ts';
import type { LimitStore, LimitSubject } from '../../core/limits/limit-store.ts';
import { readKeyMonthSpend, readTeamMonthTokens } from '../../core/limits/read-month-spend.ts';

interface Seeded {
  month: string;
  done: Promise<void>;
}

export class SpendSeeder {
  #db: Db;
  #store: LimitStore;
  #log: Logger;
  #keys = new WeakMap<object, Seeded>();
  #teams = new WeakMap<object, Seeded>();

  constructor(db: Db, store: LimitStore, log: Logger) {
    this.#db = db;
    this.#store = store;
    this.#log = log;
  }

  /**
   * `keyRecord` and `teamRecord` are the cached objects the subject was built from. Throws only when the store
   * cannot be written (the caller fails closed); a database error is logged and the seed retried on a later call.
   */
  async ensure(keyRecord: object, teamRecord: object, s: LimitSubject): Promise<void> {
    const needTeam = s.teamTokensPerMonth !== undefined;
    const k = this.#keys.get(keyRecord);
    const t = needTeam ? this.#teams.get(teamRecord) : undefined;
    const keyDone = k?.month === s.month;
    const teamDone = !needTeam || t?.month === s.month;
    if (keyDone && teamDone) {
      await k?.done;
      if (needTeam) await t?.done;
      return;
    }
    const done = this.#seed(s, !keyDone, needTeam && !teamDone);
    const entry = { month: s.month, done };
    if (!keyDone) this.#keys.set(keyRecord, entry);
    if (needTeam && !teamDone) this.#teams.set(teamRecord, entry);
    try {
      await done;
    } catch (err) {
      if (this.#keys.get(keyRecord) === entry) this.#keys.delete(keyRecord);
      if (this.#teams.get(teamRecord) === entry) this.#teams.delete(teamRecord);
      throw err;
    }
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
