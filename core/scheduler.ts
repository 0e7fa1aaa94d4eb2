/**
 * Background jobs (outbox delivery, retention, quota polling, spike windows, budget alerts) run on one node at a
 * time: the node holding the scheduler advisory lock is the leader; the others retry the lock every few seconds and
 * take over when the leader's connection goes away. The leader records itself in scheduler_leader.
 *
 * The lock lives on one Postgres session. When that session dies (restart, failover, pg_terminate_backend) Postgres
 * drops the lock, so the leader stops starting jobs the moment it notices: on the connection's error, or at the
 * latest at the next heartbeat (a round trip on the lock's own connection every retry period, which also catches a
 * silently cut network). It then campaigns again, backing off while the database does not answer. A job already
 * running when leadership is lost finishes; jobs are written to be safe to run twice.
 */
import type { AppContext } from './context.ts';
import { LOCKS, type HeldLock } from './db/db.ts';

export interface Job {
  name: string;
  everyMs: number;
  /** The first run after this long as leader instead of at once (work that can wait past a short-lived node). */
  firstAfterMs?: number;
  run(ctx: AppContext): Promise<void>;
}

const MAX_BACKOFF_MS = 10_000;

export class Scheduler {
  #ctx: AppContext;
  #jobs: Job[] = [];
  #nodeId: string;
  #lock: HeldLock | null = null;
  /** Timers of the current term as leader (job ticks, heartbeat); cleared when leadership ends. */
  #termTimers: NodeJS.Timeout[] = [];
  #campaignTimer: NodeJS.Timeout | undefined;
  #running = new Set<Promise<void>>();
  #stopped = false;
  #retryMs: number;
  #failures = 0;

  constructor(ctx: AppContext, nodeId: string, retryMs = 2000) {
    this.#ctx = ctx;
    this.#nodeId = nodeId;
    this.#retryMs = retryMs;
  }

  /** This node's id (also the owner of its open gateway calls, proxy/metering/open-call.ts). */
  get nodeId(): string {
    return this.#nodeId;
  }

  add(job: Job): void {
    this.#jobs.push(job);
  }

  get isLeader(): boolean {
    return this.#lock !== null;
  }

  start(): void {
    void this.#campaign();
  }

  #retryLater(): void {
    if (this.#stopped) return;
    // Someone else leads: retry at the normal period. The database fails: back off (with jitter, so nodes spread).
    const backoff = this.#failures === 0 ? this.#retryMs : Math.min(MAX_BACKOFF_MS, this.#retryMs * 2 ** this.#failures) * (0.75 + Math.random() / 2);
    clearTimeout(this.#campaignTimer);
    this.#campaignTimer = setTimeout(() => void this.#campaign(), backoff).unref();
  }

  async #campaign(): Promise<void> {
    if (this.#stopped || this.#lock) return;
    let lock: HeldLock | null = null;
    try {
      lock = await this.#ctx.db.tryLock(LOCKS.scheduler, (err) => this.#lose(lock, err));
      this.#failures = 0;
    } catch (err) {
      this.#failures++;
      this.#ctx.log.warn({ err }, 'scheduler could not try the leader lock');
    }
    if (lock && this.#stopped) {
      // stop() ran while the lock was being taken: give it back rather than lead a stopped node.
      await lock().catch(() => {});
      return;
    }
    if (!lock) return this.#retryLater();
    this.#lock = lock;
    this.#ctx.log.info({ node: this.#nodeId }, 'this node runs the schedulers');
    await this.#ctx.db
      .query('INSERT INTO scheduler_leader (id, node, since) VALUES (1, $1, now()) ON CONFLICT (id) DO UPDATE SET node = EXCLUDED.node, since = EXCLUDED.since', [this.#nodeId])
      .catch(() => {});
    if (this.#lock !== lock) return;
    for (const job of this.#jobs) this.#every(job, lock);
    this.#heartbeat(lock);
  }

  #heartbeat(lock: HeldLock): void {
    let busy = false;
    const beat = async () => {
      if (busy || this.#lock !== lock) return;
      busy = true;
      try {
        if (!(await lock.check())) this.#lose(lock, new Error('the leader lock connection does not answer'));
      } finally {
        busy = false;
      }
    };
    this.#termTimers.push(setInterval(() => void beat(), this.#retryMs).unref());
  }

  /** Leadership ended with the lock's session: stop starting jobs, and campaign again. */
  #lose(lock: HeldLock | null, err: Error): void {
    if (lock === null || this.#lock !== lock) return;
    this.#lock = null;
    for (const t of this.#termTimers) clearInterval(t);
    this.#termTimers = [];
    void lock().catch(() => {});
    if (this.#stopped) return;
    this.#ctx.log.warn({ err, node: this.#nodeId }, 'lost the scheduler lock with its database connection; campaigning again');
    this.#failures = 1;
    this.#retryLater();
  }

  #every(job: Job, lock: HeldLock): void {
    let busy = false;
    const tick = () => {
      if (busy || this.#stopped || this.#lock !== lock) return;
      busy = true;
      const p = job
        .run(this.#ctx)
        .catch((err) => this.#ctx.log.error({ err, job: job.name }, 'scheduled job failed'))
        .finally(() => {
          busy = false;
          this.#running.delete(p);
        });
      this.#running.add(p);
    };
    this.#termTimers.push(setInterval(tick, job.everyMs).unref());
    if (job.firstAfterMs === undefined) tick();
    else this.#termTimers.push(setTimeout(tick, job.firstAfterMs).unref());
  }

  /** Runs one job now on this node (tests, and `refresh now` endpoints). */
  async runNow(name: string): Promise<void> {
    const job = this.#jobs.find((j) => j.name === name);
    if (!job) throw new Error(`No scheduled job named ${name}`);
    await job.run(this.#ctx);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#campaignTimer);
    for (const t of this.#termTimers) clearInterval(t);
    this.#termTimers = [];
    await Promise.allSettled([...this.#running]);
    const lock = this.#lock;
    this.#lock = null;
    if (lock) await lock().catch(() => {});
  }
}
