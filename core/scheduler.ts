/**
 * Background jobs (outbox delivery, retention, quota polling, spike windows, budget alerts) run on one node at a
 * time: the node holding the scheduler advisory lock is the leader; the others retry the lock every few seconds and
 * take over when the leader's connection goes away. The leader records itself in scheduler_leader.
 */
import type { AppContext } from './context.ts';
import { LOCKS } from './db/db.ts';

export interface Job {
  name: string;
  everyMs: number;
  run(ctx: AppContext): Promise<void>;
}

export class Scheduler {
  #ctx: AppContext;
  #jobs: Job[] = [];
  #nodeId: string;
  #release: (() => Promise<void>) | null = null;
  #timers: NodeJS.Timeout[] = [];
  #running = new Set<Promise<void>>();
  #stopped = false;
  #retryMs: number;

  constructor(ctx: AppContext, nodeId: string, retryMs = 2000) {
    this.#ctx = ctx;
    this.#nodeId = nodeId;
    this.#retryMs = retryMs;
  }

  add(job: Job): void {
    this.#jobs.push(job);
  }

  get isLeader(): boolean {
    return this.#release !== null;
  }

  start(): void {
    void this.#campaign();
  }

  async #campaign(): Promise<void> {
    if (this.#stopped) return;
    try {
      this.#release = await this.#ctx.db.tryLock(LOCKS.scheduler);
    } catch (err) {
      this.#ctx.log.warn({ err }, 'scheduler could not try the leader lock');
    }
    if (this.#release && this.#stopped) {
      // stop() ran while the lock was being taken: give it back rather than lead a stopped node.
      await this.#release().catch(() => {});
      this.#release = null;
    }
    if (!this.#release) {
      if (!this.#stopped) this.#timers.push(setTimeout(() => void this.#campaign(), this.#retryMs).unref());
      return;
    }
    this.#ctx.log.info({ node: this.#nodeId }, 'this node runs the schedulers');
    await this.#ctx.db
      .query('INSERT INTO scheduler_leader (id, node, since) VALUES (1, $1, now()) ON CONFLICT (id) DO UPDATE SET node = EXCLUDED.node, since = EXCLUDED.since', [this.#nodeId])
      .catch(() => {});
    for (const job of this.#jobs) this.#every(job);
  }

  #every(job: Job): void {
    let busy = false;
    const tick = () => {
      if (busy || this.#stopped) return;
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
    this.#timers.push(setInterval(tick, job.everyMs).unref());
    tick();
  }

  /** Runs one job now on this node (tests, and `refresh now` endpoints). */
  async runNow(name: string): Promise<void> {
    const job = this.#jobs.find((j) => j.name === name);
    if (!job) throw new Error(`No scheduled job named ${name}`);
    await job.run(this.#ctx);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const t of this.#timers) clearTimeout(t);
    await Promise.allSettled([...this.#running]);
    if (this.#release) await this.#release().catch(() => {});
    this.#release = null;
  }
}
