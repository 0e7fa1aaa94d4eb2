/**
 * Quota pauses (table account_pauses): a window with under 2 % left pauses its account until the window resets,
 * or only its model family when the window belongs to one. A whole-account pause sets the account's state to
 * `paused` (out of rotation on every node through the accounts cache); a family pause leaves the state and is read
 * by rotation through ACCOUNT_PAUSES_CACHE. resumeDuePauses (run by the scheduler every 30 s) ends pauses whose time
 * has come, so an account resumes by itself at its window's reset.
 */
import type { AppContext } from '../../context.ts';
import { changeAccountState } from './account-state.ts';
import { ACCOUNT_PAUSES_CACHE } from './subscription-caches.ts';

export interface Pause {
  accountId: string;
  /** '' = the whole account. */
  family: string;
  /** Unix ms. */
  until: number;
  windowName: string;
  reason: string;
}

interface PauseRow {
  account_id: string;
  family: string;
  until: Date;
  window_name: string;
  reason: string;
}

const toPause = (r: PauseRow): Pause => ({ accountId: r.account_id, family: r.family, until: r.until.getTime(), windowName: r.window_name, reason: r.reason });

export async function readPauses(db: Pick<AppContext['db'], 'query'>, accountId?: string): Promise<Pause[]> {
  const r = accountId === undefined
    ? await db.query<PauseRow>('SELECT account_id, family, until, window_name, reason FROM account_pauses')
    : await db.query<PauseRow>('SELECT account_id, family, until, window_name, reason FROM account_pauses WHERE account_id = $1', [accountId]);
  return r.rows.map(toPause);
}

/** Starts (or extends) a pause; the state change and its event happen only when the pause is new. */
export async function pauseAccount(ctx: AppContext, p: Omit<Pause, 'reason'> & { used: number }): Promise<boolean> {
  const r = await ctx.db.query<{ inserted: boolean }>(
    `INSERT INTO account_pauses (account_id, family, until, window_name, reason, created_at) VALUES ($1, $2, $3, $4, 'quota_low', $5)
     ON CONFLICT (account_id, family) DO UPDATE SET until = GREATEST(account_pauses.until, EXCLUDED.until), window_name = EXCLUDED.window_name
     RETURNING (xmax = 0) AS inserted`,
    [p.accountId, p.family, new Date(p.until), p.windowName, new Date(ctx.clock.now())],
  );
  await ctx.caches.invalidate(ACCOUNT_PAUSES_CACHE);
  if (!r.rows[0]?.inserted) return false;
  const details = { window: p.windowName, used_fraction: p.used, until: new Date(p.until).toISOString() };
  ctx.log.info({ account: p.accountId, family: p.family || null, until: details.until }, 'account paused: quota window almost spent');
  await changeAccountState(ctx, p.family === ''
    ? { accountId: p.accountId, to: 'paused', from: ['active'], reason: 'quota_low', details }
    : { accountId: p.accountId, to: 'active', from: ['active', 'paused'], family: p.family, reason: 'quota_low', details });
  return true;
}

/** Ends one pause (its window reset, or a fresh read shows room again). */
export async function endPause(ctx: AppContext, accountId: string, family: string, reason: string): Promise<boolean> {
  const r = await ctx.db.query<PauseRow>('DELETE FROM account_pauses WHERE account_id = $1 AND family = $2 RETURNING *', [accountId, family]);
  if (!r.rows[0]) return false;
  await ctx.caches.invalidate(ACCOUNT_PAUSES_CACHE);
  const details = { window: r.rows[0].window_name };
  ctx.log.info({ account: accountId, family: family || null, reason }, 'account pause ended');
  await changeAccountState(ctx, family === ''
    ? { accountId, to: 'active', from: ['paused'], reason, details }
    : { accountId, to: 'active', from: ['active', 'paused'], family, reason, details });
  return true;
}

/** Ends every pause whose time has come; returns how many ended. */
export async function resumeDuePauses(ctx: AppContext): Promise<number> {
  const r = await ctx.db.query<PauseRow>('SELECT * FROM account_pauses WHERE until <= $1 ORDER BY until', [new Date(ctx.clock.now())]);
  let n = 0;
  for (const p of r.rows) if (await endPause(ctx, p.account_id, p.family, 'quota_reset')) n++;
  return n;
}
