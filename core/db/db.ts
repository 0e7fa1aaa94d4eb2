/**
 * The database interface every part uses: parameterised queries and transactions. Two implementations: a pg pool on
 * a real Postgres (DATABASE_URL) and the embedded in-process Postgres (PGlite) under the data directory.
 */
export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

/**
 * `name`: a statement run often with the same text (a hot-path writer's INSERT) is prepared once per connection
 * under this name and then only bound and executed (Postgres skips parsing and planning it again). The embedded
 * database ignores it.
 */
export interface QueryOptions {
  name?: string;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<T>>;
  /** Runs several statements with no parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'embedded';
  /**
   * PGlite only (tests without DATABASE_URL, reading an old PGlite data directory): it takes a Buffer parameter as
   * bytea, so bytes meant as text go as a string. The pg driver (a server, and the embedded default's child
   * Postgres) sends a Buffer as it is.
   */
  readonly textParams?: boolean;
  /** Runs fn inside BEGIN … COMMIT (ROLLBACK on throw). */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Holds a session-level advisory lock for the duration of fn (waits for it). */
  withLock<T>(lockId: number, fn: () => Promise<T>): Promise<T>;
  /**
   * Tries a session-level advisory lock; returns a release function, or null when another session holds it. When
   * the lock's connection dies the lock is gone with it: onLost is called once (no release needed then).
   */
  tryLock(lockId: number, onLost?: LockLost): Promise<HeldLock | null>;
  close(): Promise<void>;
  /** Connections of a pool (a real Postgres only): open, idle, clients waiting for one, and the most it opens. */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
}

export type LockLost = (err: Error) => void;

/** Releases a session lock; check() answers whether the session holding it still answers (false once lost). */
export type HeldLock = (() => Promise<void>) & { check(): Promise<boolean> };

/** Advisory lock ids in one place, so features never collide. */
export const LOCKS = {
  migrate: 7_100_001,
  scheduler: 7_100_002,
  usageRollups: 7_100_003,
} as const;
