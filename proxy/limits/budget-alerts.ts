/**
 * The 80 % budget alert (issue: "the team is notified once per month per key"): after a call is settled, a key
 * whose month totals reached 80 % of its dollar budget (or of its token budget) gets one `key.budget_alert` event
 * through the outbox (webhooks, GET /api/v1/notifications). "Once" holds across every node: the event is inserted
 * in the same transaction as a budget_alerts row whose primary key is (key, month, limit), and only the
 * transaction that inserted the row emits. A node remembers what it already sent, so a key above 80 % costs no
 * query per call.
 */
import type { AppContext } from '../../core/context.ts';
import { announceEvents, emitEvent } from '../../core/outbox.ts';
import type { KeyLimits, LimitSubject, Totals } from '../../core/limits/limit-store.ts';

export const ALERT_THRESHOLD = 0.8;

type AlertLimit = 'dollars_per_month' | 'tokens_per_month';

export interface AlertKey {
  id: string;
  name: string;
}

export class BudgetAlerts {
  #ctx: AppContext;
  #sent = new Set<string>();
  /** Alerts being written (tests wait for them). */
  pending = new Set<Promise<void>>();

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  /** Checks the totals after a settle; sends what is due, in the background. */
  check(key: AlertKey, subject: LimitSubject, totals: Totals): void {
    const due: [AlertLimit, number, number][] = [];
    const l: KeyLimits = subject.key;
    if (l.dollarsPerMonth && totals.keyDollars >= ALERT_THRESHOLD * l.dollarsPerMonth) due.push(['dollars_per_month', l.dollarsPerMonth, totals.keyDollars]);
    if (l.tokensPerMonth && totals.keyTokens >= ALERT_THRESHOLD * l.tokensPerMonth) due.push(['tokens_per_month', l.tokensPerMonth, totals.keyTokens]);
    for (const [limit, budget, spent] of due) {
      const memo = `${key.id}:${subject.month}:${limit}`;
      if (this.#sent.has(memo)) continue;
      if (this.#sent.size > 100_000) this.#sent.clear();
      this.#sent.add(memo);
      const p = this.#send(key, subject, limit, budget, spent)
        .catch((err) => {
          this.#sent.delete(memo);
          this.#ctx.log.error({ err, key: key.id }, 'budget alert could not be recorded; will retry on a later call');
        })
        .finally(() => this.pending.delete(p));
      this.pending.add(p);
    }
  }

  async #send(key: AlertKey, s: LimitSubject, limit: AlertLimit, budget: number, spent: number): Promise<void> {
    const emitted = await this.#ctx.db.tx(async (q) => {
      const r = await q.query('INSERT INTO budget_alerts (key_id, month, limit_name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING key_id', [key.id, s.month, limit]);
      if (r.rows.length === 0) return false;
      const id = await emitEvent(q, s.teamId, 'key.budget_alert', {
        key: { id: key.id, name: key.name },
        month: s.month,
        limit,
        threshold: ALERT_THRESHOLD,
        budget,
        spent: limit === 'dollars_per_month' ? Math.round(spent * 1e6) / 1e6 : Math.round(spent),
        percent: Math.floor((spent / budget) * 100),
      });
      await q.query('UPDATE budget_alerts SET outbox_id = $4 WHERE key_id = $1 AND month = $2 AND limit_name = $3', [key.id, s.month, limit, id]);
      return true;
    });
    if (emitted) await announceEvents(this.#ctx.counters);
  }
}
