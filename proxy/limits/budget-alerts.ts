/**
 * The 80 % budget alerts (issue: "the team is notified once per month per key"): after a call is settled,
 * - a key whose month totals reached 80 % of its dollar budget (or of its token budget) gets one
 *   `key.budget_alert` event, once per key, month and limit (a budget_alerts row);
 * - a team whose month tokens reached 80 % of its `ai.tokens` limit gets one `team.budget_alert` event, once per
 *   team and month (a team_budget_alerts row).
 * Events go through the outbox (webhooks, GET /api/v1/notifications). "Once" holds across every node: the event is
 * inserted in the same transaction as its row, whose primary key names what was alerted, and only the transaction
 * that inserted the row emits. A node remembers what it already sent, so a key or team above 80 % costs no query
 * per call.
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

const MEMO_MAX = 100_000;

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
    const l: KeyLimits = subject.key;
    if (l.dollarsPerMonth && totals.keyDollars >= ALERT_THRESHOLD * l.dollarsPerMonth) this.#keyAlert(key, subject, 'dollars_per_month', l.dollarsPerMonth, totals.keyDollars);
    if (l.tokensPerMonth && totals.keyTokens >= ALERT_THRESHOLD * l.tokensPerMonth) this.#keyAlert(key, subject, 'tokens_per_month', l.tokensPerMonth, totals.keyTokens);
    const team = subject.teamTokensPerMonth;
    if (team && totals.teamTokens >= ALERT_THRESHOLD * team) {
      // Key ids start with `key_`, so this memo cannot collide with a key's.
      const memo = `team:${subject.teamId}:${subject.month}`;
      if (this.#claim(memo)) this.#track(memo, { team: subject.teamId }, this.#sendTeam(subject, team, totals.teamTokens));
    }
  }

  #keyAlert(key: AlertKey, s: LimitSubject, limit: AlertLimit, budget: number, spent: number): void {
    const memo = `${key.id}:${s.month}:${limit}`;
    if (this.#claim(memo)) this.#track(memo, { key: key.id }, this.#sendKey(key, s, limit, budget, spent));
  }

  /** True when this node has not sent (or started sending) the alert named by memo; it then counts as sent. */
  #claim(memo: string): boolean {
    if (this.#sent.has(memo)) return false;
    if (this.#sent.size > MEMO_MAX) this.#sent.clear();
    this.#sent.add(memo);
    return true;
  }

  /** Announces an emitted alert; a failed one is forgotten, so a later call retries it. */
  #track(memo: string, logFields: Record<string, string>, sending: Promise<boolean>): void {
    const p = sending
      .then(async (emitted) => {
        if (emitted) await announceEvents(this.#ctx.counters);
      })
      .catch((err) => {
        this.#sent.delete(memo);
        this.#ctx.log.error({ err, ...logFields }, 'budget alert could not be recorded; will retry on a later call');
      })
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** True when this transaction inserted the key's row and its event; false when another node (or call) had. */
  #sendKey(key: AlertKey, s: LimitSubject, limit: AlertLimit, budget: number, spent: number): Promise<boolean> {
    return this.#ctx.db.tx(async (q) => {
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
  }

  /** The team's `ai.tokens` alert; the team's name is read here, once per team and month, not on the call path. */
  #sendTeam(s: LimitSubject, budget: number, spent: number): Promise<boolean> {
    return this.#ctx.db.tx(async (q) => {
      const r = await q.query<{ name: string | null }>(
        "INSERT INTO team_budget_alerts (team_id, month, limit_name) VALUES ($1, $2, 'ai.tokens') ON CONFLICT DO NOTHING RETURNING (SELECT name FROM teams WHERE id = $1) AS name",
        [s.teamId, s.month],
      );
      if (r.rows.length === 0) return false;
      const name = r.rows[0].name;
      const id = await emitEvent(q, s.teamId, 'team.budget_alert', {
        team: name === null ? { id: s.teamId } : { id: s.teamId, name },
        month: s.month,
        limit: 'ai.tokens',
        threshold: ALERT_THRESHOLD,
        budget,
        spent: Math.round(spent),
        percent: Math.floor((spent / budget) * 100),
      });
      await q.query("UPDATE team_budget_alerts SET outbox_id = $3 WHERE team_id = $1 AND month = $2 AND limit_name = 'ai.tokens'", [s.teamId, s.month, id]);
      return true;
    });
  }
}
