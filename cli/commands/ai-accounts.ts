/**
 * svc ai accounts add | sign-in | list | show | refresh: provider accounts (/api/v1/accounts, superusers).
 *
 * `add <provider>` adds an API-key account (the key is asked without echo, or read from stdin); with
 * --subscription, or with a plan's short name (claude, chatgpt, gemini-plan), it signs a subscription account in:
 * it prints the provider's sign-in URL and reads the code (or the whole address the browser ended on) from the
 * terminal or stdin; --device uses the ChatGPT device sign-in instead (a URL and a code to enter, no paste).
 */
import { seg, type ApiClient } from '../api-client.ts';
import { CliError } from '../cli-error.ts';
import { defineCommand, defineGroup, type CommandContext } from '../command.ts';
import type { Column } from '../output.ts';
import { ask, askHidden, isInteractive, readStdin } from '../prompt.ts';

interface AccountView {
  id: string;
  name: string;
  provider: string;
  kind: string;
  state: string;
  base_url: string | null;
  proxy_url: string | null;
  secret_hint: string | null;
  models: string[];
  weight: number;
  priority: number;
  created_at: string;
  signed_in_as?: string | null;
}

interface QuotaWindowView {
  name: string;
  family: string | null;
  used_fraction: number;
  left_fraction: number;
  resets_at: string | null;
  forecast_fraction: number | null;
  source: string;
}

interface AccountDetails extends AccountView {
  quota: { read_at: string | null; source: string | null; error: string | null; windows: QuotaWindowView[] };
  pauses: { family: string | null; until: string; window: string }[];
  cooldown: { until: string; reason: string } | null;
  sign_in: { email: string | null; plan: string | null; token_expires_at: string; refresh_failures: number; last_refresh_error: string | null } | null;
}

/** Short names of plans: they imply --subscription. */
const PLANS: Record<string, string> = { claude: 'anthropic', chatgpt: 'openai', 'gemini-plan': 'gemini' };
const PROVIDERS = ['anthropic', 'openai', 'gemini', 'openai-compatible'];

const COLUMNS: Column<AccountView>[] = [
  { title: 'id', value: (a) => a.id },
  { title: 'name', value: (a) => a.name },
  { title: 'provider', value: (a) => a.provider },
  { title: 'kind', value: (a) => a.kind },
  { title: 'state', value: (a) => a.state },
  { title: 'weight', value: (a) => a.weight },
  { title: 'priority', value: (a) => a.priority },
  { title: 'models', value: (a) => (a.models.length ? a.models.join(',') : '*') },
  { title: 'credential', value: (a) => a.secret_hint },
];

const WINDOW_COLUMNS: Column<QuotaWindowView>[] = [
  { title: 'window', value: (w) => w.name },
  { title: 'family', value: (w) => w.family ?? 'all' },
  { title: 'used', value: (w) => `${Math.round(w.used_fraction * 1000) / 10}%` },
  { title: 'at reset', value: (w) => (w.forecast_fraction === null ? null : `${Math.round(w.forecast_fraction * 1000) / 10}%`) },
  { title: 'resets', value: (w) => w.resets_at },
  { title: 'from', value: (w) => w.source },
];

const ADD_OPTIONS = {
  subscription: { type: 'boolean', description: 'Sign a plan in with OAuth instead of adding an API key (implied by claude, chatgpt, gemini-plan).' },
  name: { type: 'string', value: 'NAME', description: 'Name of the account (default: the provider and a random suffix).' },
  device: { type: 'boolean', description: 'ChatGPT plans: sign in with a code entered on the provider page (no paste).' },
  proxy: { type: 'string', value: 'URL', description: 'Outbound HTTP(S) proxy for this account, e.g. http://10.0.0.5:3128.' },
  models: { type: 'string', value: 'LIST', description: 'Comma-separated model ids or * patterns the account serves (default: any).' },
  weight: { type: 'string', value: 'N', description: 'Share of new conversations among accounts of the same priority (1-1000).' },
  priority: { type: 'string', value: 'N', description: 'Higher serves first (-1000 to 1000).' },
  'base-url': { type: 'string', value: 'URL', description: 'API-key accounts: the API base URL (required for openai-compatible).' },
  project: { type: 'string', value: 'ID', description: 'Gemini plans: the Code Assist project (found at sign-in when absent).' },
} as const;

function intOption(v: string | undefined, name: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new CliError('usage', `--${name} must be a whole number from ${min} to ${max} (got "${v}").`, { helpFor: 'svc ai accounts add' });
  return n;
}

async function readSecret(question: string, what: string): Promise<string> {
  const v = (isInteractive() ? await askHidden(question) : await readStdin(what)).trim();
  if (v === '') throw new CliError('usage', `${what} is empty.`);
  return v;
}

async function readPaste(): Promise<string> {
  const v = isInteractive()
    ? await ask('Paste the code, or the whole address the browser ended on')
    : (await readStdin('The code or callback URL')).split('\n')[0];
  if (v.trim() === '') throw new CliError('usage', 'Nothing was pasted; run the command again when you have the code.');
  return v.trim();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs a sign-in from start to the created (or signed-in-again) account. */
async function signIn(ctx: CommandContext, api: ApiClient, start: Record<string, unknown>): Promise<AccountView> {
  const s = await api.post<{ state: string; authorize_url?: string; verification_url?: string; user_code?: string; interval_s?: number; expires_at: string }>('/api/v1/accounts/oauth/start', start);
  if (s.verification_url) {
    ctx.out.note(`Open ${s.verification_url} and enter the code ${s.user_code}. Waiting for you (until ${s.expires_at})…`);
    const until = Date.parse(s.expires_at);
    for (;;) {
      const r = await api.post<AccountView & { pending?: boolean; retry_after_s?: number }>('/api/v1/accounts/oauth/finish', { state: s.state });
      if (!r.pending) return r;
      if (Date.now() > until) throw new CliError('api', 'The sign-in expired before the code was entered; run the command again.', { status: 400, code: 'oauth_state_expired' });
      await sleep((r.retry_after_s ?? s.interval_s ?? 5) * 1000);
    }
  }
  ctx.out.note('Open this address in a browser, sign in and approve:');
  ctx.out.note(s.authorize_url ?? '');
  const pasted = await readPaste();
  const body = /^https?:\/\//i.test(pasted) ? { state: s.state, callback_url: pasted } : { state: s.state, code: pasted };
  return api.post<AccountView>('/api/v1/accounts/oauth/finish', body);
}

const add = defineCommand({
  name: 'add',
  summary: 'Add a provider account: an API key, or a plan signed in with OAuth',
  description: 'Add a provider account. Providers: anthropic, openai, gemini, openai-compatible (API keys; the key is asked without echo or read from stdin), and the plans claude, chatgpt, gemini-plan (or a provider with --subscription): the command prints the sign-in URL and reads the code or callback URL you paste.',
  args: [{ name: 'provider', required: true, description: 'anthropic, openai, gemini, openai-compatible, or a plan: claude, chatgpt, gemini-plan.' }],
  options: ADD_OPTIONS,
  examples: ['svc ai accounts add claude --name max-1', 'svc ai accounts add chatgpt --device --proxy http://10.0.0.5:3128', 'printf %s "$ANTHROPIC_API_KEY" | svc ai accounts add anthropic --name team-key'],
  async run(ctx) {
    const word = ctx.args.provider as string;
    const plan = PLANS[word];
    const subscription = plan !== undefined || ctx.opts.subscription === true;
    const provider = plan ?? word;
    if (!PROVIDERS.includes(provider)) throw new CliError('usage', `Unknown provider "${word}"; use ${[...PROVIDERS, ...Object.keys(PLANS)].join(', ')}.`, { helpFor: 'svc ai accounts add' });
    const common: Record<string, unknown> = {
      name: ctx.opts.name ?? `${word}-${Math.random().toString(16).slice(2, 6)}`,
      ...(ctx.opts.proxy !== undefined ? { proxy_url: ctx.opts.proxy } : {}),
      ...(ctx.opts.models !== undefined ? { models: ctx.opts.models.split(',').map((m) => m.trim()).filter(Boolean) } : {}),
      ...(ctx.opts.weight !== undefined ? { weight: intOption(ctx.opts.weight, 'weight', 1, 1000) } : {}),
      ...(ctx.opts.priority !== undefined ? { priority: intOption(ctx.opts.priority, 'priority', -1000, 1000) } : {}),
    };
    const api = ctx.api();
    let a: AccountView;
    if (subscription) {
      if (ctx.opts['base-url'] !== undefined) throw new CliError('usage', '--base-url is for API-key accounts; a plan uses its provider profile.', { helpFor: 'svc ai accounts add' });
      a = await signIn(ctx, api, { provider, ...common, ...(ctx.opts.device ? { flow: 'device' } : {}), ...(ctx.opts.project ? { project_id: ctx.opts.project } : {}) });
    } else {
      if (ctx.opts.device || ctx.opts.project) throw new CliError('usage', '--device and --project are for plans (claude, chatgpt, gemini-plan or --subscription).', { helpFor: 'svc ai accounts add' });
      const apiKey = await readSecret(`${provider} API key`, 'The API key');
      a = await api.post<AccountView>('/api/v1/accounts', { provider, ...common, api_key: apiKey, ...(ctx.opts['base-url'] !== undefined ? { base_url: ctx.opts['base-url'] } : {}) });
    }
    ctx.out.result(a, () => {
      ctx.out.fields([['id', a.id], ['name', a.name], ['provider', a.provider], ['kind', a.kind], ['state', a.state], ['signed in as', a.signed_in_as ?? a.secret_hint]]);
    });
  },
});

const signInAgain = defineCommand({
  name: 'sign-in',
  summary: 'Sign a subscription account in again (after needs_sign_in)',
  args: [{ name: 'id', required: true, description: 'The account id (from svc ai accounts list).' }],
  options: { device: ADD_OPTIONS.device },
  examples: ['svc ai accounts sign-in acc_3f2a9c0d1e4b5a67'],
  async run(ctx) {
    const api = ctx.api();
    const current = await api.get<AccountView>(`/api/v1/accounts/${seg(ctx.args.id as string)}`);
    const a = await signIn(ctx, api, { provider: current.provider, account_id: current.id, ...(ctx.opts.device ? { flow: 'device' } : {}) });
    ctx.out.result(a, () => ctx.out.line(`Signed ${a.name} in again; state ${a.state}.`));
  },
});

const list = defineCommand({
  name: 'list',
  summary: 'List provider accounts',
  options: { state: { type: 'string', value: 'STATE', description: 'Only accounts in this state: active, disabled, needs_sign_in, paused.' } },
  examples: ['svc ai accounts list', 'svc ai accounts list --state needs_sign_in'],
  async run(ctx) {
    const items = await ctx.api().listAll<AccountView>('/api/v1/accounts', { state: ctx.opts.state });
    ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, COLUMNS, 'No provider accounts.'));
  },
});

function printDetails(ctx: CommandContext, a: AccountDetails): void {
  ctx.out.fields([
    ['id', a.id], ['name', a.name], ['provider', a.provider], ['kind', a.kind], ['state', a.state],
    ['weight', a.weight], ['priority', a.priority], ['models', a.models.length ? a.models.join(', ') : 'any'], ['proxy', a.proxy_url],
    ['signed in as', a.sign_in?.email ?? a.secret_hint], ['plan', a.sign_in?.plan], ['token expires', a.sign_in?.token_expires_at],
    ['refresh trouble', a.sign_in?.last_refresh_error], ['cooling down', a.cooldown ? `${a.cooldown.reason} until ${a.cooldown.until}` : null],
    ['paused', a.pauses.length ? a.pauses.map((p) => `${p.family ?? 'all models'} until ${p.until}`).join('; ') : null],
    ['quota read', a.quota.read_at ? `${a.quota.read_at} from ${a.quota.source ?? 'nowhere'}` : null], ['quota note', a.quota.error],
  ]);
  if (a.quota.windows.length > 0) {
    ctx.out.line();
    ctx.out.table(a.quota.windows, WINDOW_COLUMNS, '');
  }
}

const show = defineCommand({
  name: 'show',
  summary: 'Show an account with its quota windows, pauses, cooldown and sign-in',
  args: [{ name: 'id', required: true, description: 'The account id.' }],
  examples: ['svc ai accounts show acc_3f2a9c0d1e4b5a67'],
  async run(ctx) {
    const a = await ctx.api().get<AccountDetails>(`/api/v1/accounts/${seg(ctx.args.id as string)}`);
    ctx.out.result(a, () => printDetails(ctx, a));
  },
});

const refresh = defineCommand({
  name: 'refresh',
  summary: "Read a subscription account's quota windows now",
  args: [{ name: 'id', required: true, description: 'The account id.' }],
  examples: ['svc ai accounts refresh acc_3f2a9c0d1e4b5a67'],
  async run(ctx) {
    const api = ctx.api();
    const id = seg(ctx.args.id as string);
    await api.post(`/api/v1/accounts/${id}/quota/refresh`);
    const a = await api.get<AccountDetails>(`/api/v1/accounts/${id}`);
    ctx.out.result(a, () => printDetails(ctx, a));
  },
});

export const accountsGroup = defineGroup('accounts', 'Provider accounts: API keys and plans signed in with OAuth', [add, signInAgain, list, show, refresh]);
