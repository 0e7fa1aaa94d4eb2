/**
 * svc ai quota: what a gateway key has left this month (GET /api/v1/quota, authorized by the key itself). The key
 * comes from SVC_AI_KEY, else OPENAI_API_KEY (what SDK users already have set); the server from SVC_URL / the
 * config file, else OPENAI_BASE_URL without its /v1.
 */
import { ApiClient } from '../api-client.ts';
import { CliError } from '../cli-error.ts';
import { defineCommand } from '../command.ts';
import { thousands } from '../output.ts';

interface Quota {
  key: { id: string; name: string; team: string };
  month: string;
  resets_at: string;
  limits: { requests_per_minute: number | null; requests_per_day: number | null; tokens_per_month: number | null; dollars_per_month: number | null };
  requests: { last_minute: number | null; last_day: number | null };
  spent: { tokens: number; dollars: number };
  in_flight: { tokens: number; dollars: number };
  remaining: { tokens: number | null; dollars: number | null; requests_per_minute: number | null; requests_per_day: number | null };
  team: { tokens_per_month: number | null; spent_tokens: number; remaining_tokens: number | null };
  counters: 'ok' | 'unavailable';
}

const usd = (v: number) => `$${v.toFixed(2)}`;

/** One request window: "3 of 60 in the last minute, 57 left"; a count the counters do not keep is left out. */
function window(used: number | null, limit: number | null, left: number | null, span: string): string {
  if (limit === null) return used === null ? `no limit per ${span}` : `${thousands(used)} in the last ${span}, no limit`;
  if (used === null) return `limit ${thousands(limit)} per ${span}, count unavailable`;
  return `${thousands(used)} of ${thousands(limit)} in the last ${span}, ${thousands(left ?? 0)} left`;
}

export const quota = defineCommand({
  name: 'quota',
  summary: 'Show what your gateway key has left this month (key from SVC_AI_KEY or OPENAI_API_KEY)',
  description: 'Show the limits of a gateway key, what it spent this calendar month (UTC) and what remains. The key is read from SVC_AI_KEY, else OPENAI_API_KEY.',
  examples: ['SVC_AI_KEY=sk-svc-… svc ai quota', 'svc ai quota --json'],
  async run(ctx) {
    const key = ctx.env.SVC_AI_KEY || ctx.env.OPENAI_API_KEY;
    if (!key) throw new CliError('usage', 'Set SVC_AI_KEY (or OPENAI_API_KEY) to the gateway key (sk-svc-…) to show its quota.', { helpFor: 'svc ai quota' });
    const s = ctx.settings();
    const base = s.urlFrom === 'default' && ctx.env.OPENAI_BASE_URL ? ctx.env.OPENAI_BASE_URL.replace(/\/+$/, '').replace(/\/v1$/, '') : s.url;
    const q = await new ApiClient(base, key).get<Quota>('/api/v1/quota');
    ctx.out.result(q, () => {
      const l = q.limits;
      ctx.out.fields([
        ['key', `${q.key.name} (${q.key.id})`],
        ['month', `${q.month} (resets ${q.resets_at})`],
        ['dollars', l.dollars_per_month === null ? `${usd(q.spent.dollars)} spent, no budget` : `${usd(q.spent.dollars)} spent of ${usd(l.dollars_per_month)}, ${usd(q.remaining.dollars ?? 0)} left`],
        ['tokens', l.tokens_per_month === null ? `${thousands(q.spent.tokens)} spent, no budget` : `${thousands(q.spent.tokens)} spent of ${thousands(l.tokens_per_month)}, ${thousands(q.remaining.tokens ?? 0)} left`],
        ['in flight', q.in_flight.tokens > 0 ? `${thousands(q.in_flight.tokens)} tokens, ${usd(q.in_flight.dollars)} reserved by calls running now` : 'nothing'],
        ['requests', `${window(q.requests.last_minute, l.requests_per_minute, q.remaining.requests_per_minute, 'minute')}; ${window(q.requests.last_day, l.requests_per_day, q.remaining.requests_per_day, 'day')}`],
        ['team tokens', q.team.tokens_per_month === null ? 'no team budget' : `${thousands(q.team.spent_tokens)} spent of ${thousands(q.team.tokens_per_month)}, ${thousands(q.team.remaining_tokens ?? 0)} left`],
      ]);
      if (q.counters !== 'ok') ctx.out.warn('the limit counters are unavailable: figures come from usage records only, and metered calls are refused until they are back.');
    });
  },
});
