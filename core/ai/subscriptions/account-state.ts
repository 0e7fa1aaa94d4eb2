/**
 * State changes of provider accounts made by the gateway itself (quota pause and resume, a sign-in that expired, a
 * new sign-in), each recorded in account_state_changes and announced as `account.state_changed` through the outbox,
 * in the transaction that makes the change.
 *
 * Accounts belong to the instance, not to a team, so the event goes to (docs/accounts.md "Notifications"):
 * - every team whose gateway keys used the account in the current calendar month (UTC), and
 * - the team named by SVC_ACCOUNT_EVENTS_TEAM (its id or name), when set (the administrators' team), so idle accounts are covered too.
 * A team's webhooks subscribed to `account.state_changed` then receive it.
 *
 * A change applies only from the states it names (`from`): the gateway never overrides an administrator who
 * disabled an account, and never resumes an account paused for another reason.
 */
import type { AppContext } from '../../context.ts';
import { announceEvents, emitEvent } from '../../outbox.ts';
import { ACCOUNTS_CACHE } from '../cache-names.ts';
import { ACCOUNT_PAUSES_CACHE } from './subscription-caches.ts';

export type AccountState = 'active' | 'disabled' | 'needs_sign_in' | 'paused';

export interface StateChange {
  accountId: string;
  /** The new state; for a family pause or resume, the account's state stays and `family` says what changed. */
  to: AccountState;
  /** States the change applies from (the account is left alone in any other). */
  from: readonly AccountState[];
  family?: string | null;
  /** Stable snake_case reason: quota_low, quota_reset, refresh_refused, unauthorized, signed_in, … */
  reason: string;
  details?: Record<string, unknown>;
}

interface AccountRow {
  id: string;
  name: string;
  provider: string;
  kind: string;
  state: AccountState;
}

function monthStart(now: number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

/** Teams to tell about an account: its users this month, plus the configured administrators' team. */
async function teamsToTell(ctx: AppContext, q: Pick<AppContext['db'], 'query'>, accountId: string, now: number): Promise<string[]> {
  const r = await q.query<{ team_id: string }>('SELECT DISTINCT team_id FROM usage_records WHERE account_id = $1 AND at >= $2', [accountId, monthStart(now)]);
  const teams = new Set(r.rows.map((t) => t.team_id));
  const admin = ctx.config.accountEventsTeam;
  if (admin) {
    const t = await q.query<{ id: string }>('SELECT id FROM teams WHERE id = $1 OR name = $1 LIMIT 1', [admin]);
    if (t.rows[0]) teams.add(t.rows[0].id);
    else ctx.log.warn({ team: admin }, 'SVC_ACCOUNT_EVENTS_TEAM names a team that does not exist; account events go only to the teams that used the account');
  }
  // Existing teams only (usage rows outlive deleted teams).
  if (teams.size === 0) return [];
  const live = await q.query<{ id: string }>('SELECT id FROM teams WHERE id = ANY($1)', [[...teams]]);
  return live.rows.map((t) => t.id).sort();
}

/** Applies the change; returns false when the account is gone or in a state the change does not apply from. */
export async function changeAccountState(ctx: AppContext, c: StateChange): Promise<boolean> {
  const now = ctx.clock.now();
  const changed = await ctx.db.tx(async (q) => {
    const r = await q.query<AccountRow>('SELECT id, name, provider, kind, state FROM provider_accounts WHERE id = $1 FOR UPDATE', [c.accountId]);
    const a = r.rows[0];
    if (!a || !c.from.includes(a.state)) return null;
    const family = c.family ?? null;
    if (family === null && a.state !== c.to) {
      await q.query('UPDATE provider_accounts SET state = $2, updated_at = $3 WHERE id = $1', [a.id, c.to, new Date(now)]);
    }
    const to = family === null ? c.to : a.state;
    await q.query(
      'INSERT INTO account_state_changes (account_id, from_state, to_state, family, reason, details, at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [a.id, a.state, to, family, c.reason, JSON.stringify(c.details ?? {}), new Date(now)],
    );
    const payload = {
      account: { id: a.id, name: a.name, provider: a.provider, kind: a.kind },
      from: a.state,
      to,
      family,
      reason: c.reason,
      details: c.details ?? {},
      at: new Date(now).toISOString(),
    };
    for (const team of await teamsToTell(ctx, q, a.id, now)) await emitEvent(q, team, 'account.state_changed', payload);
    return { stateChanged: family === null && a.state !== c.to };
  });
  if (!changed) return false;
  if (changed.stateChanged) await ctx.caches.invalidate(ACCOUNTS_CACHE);
  await ctx.caches.invalidate(ACCOUNT_PAUSES_CACHE);
  await announceEvents(ctx.counters);
  return true;
}
