/**
 * /api/v1/accounts: provider accounts the gateway sends calls to (superusers only). The API key is sealed at rest
 * (core/secret-box) and never answered: views carry `has_secret` and `secret_hint`. Every change drops the proxy
 * nodes' account cache (ACCOUNTS_CACHE, whole).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { requireSuperuser } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { seal } from '../../core/secret-box.ts';
import { LIST_QUERY, listEnvelope, parseListParams } from '../../core/http/list.ts';
import { ACCOUNTS_CACHE } from '../../core/ai/cache-names.ts';
import { principal } from '../auth-hook.ts';
import {
  ACCOUNT_KINDS, PROVIDERS, SETTABLE_STATES, apiKeyWarning, checkApiKey, checkBaseUrl, checkProxyUrl, secretHint, type AccountKind, type Provider,
} from './account-input.ts';
import { accountView, type AccountRow } from './account-view.ts';
import { checkModelList, MODEL_LIST_SCHEMA } from './model-list-input.ts';
import { accountDetails } from './quota/account-details.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { ACCOUNT_VIEW, ACCOUNT_WITH_DETAILS, CHANGED_ACCOUNT, DELETED_ACCOUNT } from './ai-schemas.ts';

const ID_PARAMS = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const MAX_ACCOUNT_MODELS = 500;
const FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  api_key: { type: 'string', description: 'The provider API key; stored encrypted, never returned.' },
  base_url: { type: ['string', 'null'], description: 'http(s) URL of the API; required for openai-compatible; null = the official endpoint.' },
  proxy_url: { type: ['string', 'null'], description: 'Outbound HTTP(S) proxy for this account, e.g. http://user:pass@10.0.0.5:3128.' },
  models: { ...MODEL_LIST_SCHEMA, description: 'Model ids or * patterns this account serves; empty = the provider\'s model list.' },
  weight: { type: 'integer', minimum: 1, maximum: 1000, description: 'Share of new calls among accounts of the same priority.' },
  priority: { type: 'integer', minimum: -1000, maximum: 1000, description: 'Higher serves first; lower ones are fallbacks.' },
  state: { type: 'string', enum: [...SETTABLE_STATES] },
} as const;

interface AccountBody {
  name?: string;
  provider?: Provider;
  kind?: AccountKind;
  api_key?: string;
  base_url?: string | null;
  proxy_url?: string | null;
  models?: string[];
  weight?: number;
  priority?: number;
  state?: 'active' | 'disabled';
}

function cleanName(name: string): string {
  const n = name.trim();
  if (n === '') throw svcError('validation_failed', 'The account name must not be blank.', { field: 'name' });
  return n;
}

const SUBSCRIPTION_REFUSED = 'Accounts of kind "subscription" are not created with an API key: they are signed in with the OAuth sign-in endpoints of the subscription accounts feature. Use kind "api_key" with an official API key here.';

export function accountsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const load = async (id: string): Promise<AccountRow> => {
    const r = await ctx.db.query<AccountRow>('SELECT * FROM provider_accounts WHERE id = $1', [id]);
    if (!r.rows[0]) throw svcError('not_found', `Provider account ${id} was not found.`);
    return r.rows[0];
  };
  const nameTaken = (name: string) => svcError('conflict', `A provider account named "${name}" already exists.`, { field: 'name' });
  const isUniqueViolation = (e: unknown) => (e as { code?: string })?.code === '23505';

  app.post('/api/v1/accounts', {
    schema: {
      tags: ['ai'],
      summary: 'Add a provider account (superusers)',
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'provider'],
        properties: { ...FIELDS, provider: { type: 'string', enum: [...PROVIDERS] }, kind: { type: 'string', enum: [...ACCOUNT_KINDS], default: 'api_key' } },
      },
      response: { 201: CHANGED_ACCOUNT },
    },
  }, async (req, reply) => {
    requireSuperuser(principal(req));
    const b = req.body as AccountBody & { name: string; provider: Provider; kind: AccountKind };
    if (b.kind === 'subscription') throw svcError('validation_failed', SUBSCRIPTION_REFUSED, { field: 'kind' });
    const name = cleanName(b.name);
    if (b.api_key === undefined) throw svcError('validation_failed', `"api_key" is required for an account of kind api_key (the ${b.provider} API key).`, { field: 'api_key' });
    const apiKey = checkApiKey(b.api_key);
    const baseUrl = b.base_url == null ? null : checkBaseUrl(b.base_url);
    if (b.provider === 'openai-compatible' && baseUrl === null) {
      throw svcError('validation_failed', '"base_url" is required for provider openai-compatible: the URL that /chat/completions is appended to, such as http://127.0.0.1:11434/v1.', { field: 'base_url' });
    }
    const proxyUrl = b.proxy_url == null ? null : checkProxyUrl(b.proxy_url);
    const models = checkModelList(b.models ?? [], 'models', { patterns: true, max: MAX_ACCOUNT_MODELS });
    const now = new Date(ctx.clock.now());
    let row: AccountRow;
    try {
      const r = await ctx.db.query<AccountRow>(
        `INSERT INTO provider_accounts (id, name, provider, kind, base_url, proxy_url, secret_sealed, secret_hint, models, weight, priority, state, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) RETURNING *`,
        [newId('acc_'), name, b.provider, b.kind, baseUrl, proxyUrl, seal(ctx.secretKey, apiKey), secretHint(apiKey), models, b.weight ?? 1, b.priority ?? 0, b.state ?? 'active', now],
      );
      row = r.rows[0];
    } catch (e) {
      if (isUniqueViolation(e)) throw nameTaken(name);
      throw e;
    }
    await ctx.caches.invalidate(ACCOUNTS_CACHE);
    const warning = apiKeyWarning(b.provider, apiKey, baseUrl);
    return reply.code(201).send({ ...accountView(row), ...(warning ? { warnings: [warning] } : {}) });
  });

  app.get('/api/v1/accounts', {
    schema: {
      tags: ['ai'],
      summary: 'List provider accounts (superusers)',
      querystring: { type: 'object', properties: { ...LIST_QUERY, provider: { type: 'string', enum: [...PROVIDERS] }, state: { type: 'string', enum: ['active', 'disabled', 'needs_sign_in', 'paused'] } } },
      response: { 200: listOf(ACCOUNT_VIEW) },
    },
  }, async (req) => {
    requireSuperuser(principal(req), 'read');
    const q = req.query as { limit?: string; cursor?: string; provider?: string; state?: string };
    const { limit, after } = parseListParams(q, 2);
    const params: unknown[] = [limit + 1];
    const where: string[] = [];
    if (q.provider) where.push(`provider = $${params.push(q.provider)}`);
    if (q.state) where.push(`state = $${params.push(q.state)}`);
    if (after) where.push(`(created_at, id) < ($${params.push(after[0])}::timestamptz, $${params.push(after[1])})`);
    const r = await ctx.db.query<AccountRow>(
      `SELECT * FROM provider_accounts ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT $1`,
      params,
    );
    return listEnvelope(r.rows, limit, (a) => [a.created_at.toISOString(), a.id], accountView);
  });

  app.get('/api/v1/accounts/:id', { schema: { tags: ['ai'], summary: 'Show a provider account (never its secret), with its quota windows, pauses, cooldown and sign-in', params: ID_PARAMS, response: { 200: ACCOUNT_WITH_DETAILS } } }, async (req) => {
    requireSuperuser(principal(req), 'read');
    const a = await load((req.params as { id: string }).id);
    return { ...accountView(a), ...(await accountDetails(ctx, a.id)) };
  });

  app.patch('/api/v1/accounts/:id', {
    schema: {
      tags: ['ai'],
      summary: 'Change a provider account (superusers); api_key replaces the secret',
      params: ID_PARAMS,
      body: { type: 'object', additionalProperties: false, properties: { ...FIELDS, provider: { type: 'string' }, kind: { type: 'string' } } },
      response: { 200: CHANGED_ACCOUNT },
    },
  }, async (req) => {
    requireSuperuser(principal(req));
    const a = await load((req.params as { id: string }).id);
    const b = req.body as AccountBody;
    if (b.provider !== undefined && b.provider !== a.provider) throw svcError('validation_failed', `The provider of an account cannot change (it is ${a.provider}); add a new account instead.`, { field: 'provider' });
    if (b.kind !== undefined && b.kind !== a.kind) throw svcError('validation_failed', `The kind of an account cannot change (it is ${a.kind}); add a new account instead.`, { field: 'kind' });
    const sets: string[] = [];
    const params: unknown[] = [a.id];
    let name = a.name;
    if (b.name !== undefined) sets.push(`name = $${params.push((name = cleanName(b.name)))}`);
    let apiKey: string | null = null;
    if (b.api_key !== undefined) {
      if (a.kind === 'subscription') throw svcError('validation_failed', `A subscription account has no API key: sign it in again with POST /api/v1/accounts/oauth/start and "account_id": "${a.id}".`, { field: 'api_key' });
      apiKey = checkApiKey(b.api_key);
      sets.push(`secret_sealed = $${params.push(seal(ctx.secretKey, apiKey))}`, `secret_hint = $${params.push(secretHint(apiKey))}`);
    }
    let baseUrl = a.base_url;
    if (b.base_url !== undefined) {
      baseUrl = b.base_url === null ? null : checkBaseUrl(b.base_url);
      if (a.provider === 'openai-compatible' && baseUrl === null) throw svcError('validation_failed', '"base_url" cannot be removed from an openai-compatible account: it has no official endpoint.', { field: 'base_url' });
      sets.push(`base_url = $${params.push(baseUrl)}`);
    }
    if (b.proxy_url !== undefined) sets.push(`proxy_url = $${params.push(b.proxy_url === null ? null : checkProxyUrl(b.proxy_url))}`);
    if (b.models !== undefined) sets.push(`models = $${params.push(checkModelList(b.models, 'models', { patterns: true, max: MAX_ACCOUNT_MODELS }))}`);
    if (b.weight !== undefined) sets.push(`weight = $${params.push(b.weight)}`);
    if (b.priority !== undefined) sets.push(`priority = $${params.push(b.priority)}`);
    if (b.state !== undefined) sets.push(`state = $${params.push(b.state)}`);
    if (sets.length === 0) return accountView(a);
    sets.push(`updated_at = $${params.push(new Date(ctx.clock.now()))}`);
    let row: AccountRow | undefined;
    try {
      row = (await ctx.db.query<AccountRow>(`UPDATE provider_accounts SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params)).rows[0];
    } catch (e) {
      if (isUniqueViolation(e)) throw nameTaken(name);
      throw e;
    }
    if (!row) throw svcError('not_found', `Provider account ${a.id} was not found.`);
    await ctx.caches.invalidate(ACCOUNTS_CACHE);
    const warning = apiKey === null ? null : apiKeyWarning(a.provider, apiKey, baseUrl);
    return { ...accountView(row), ...(warning ? { warnings: [warning] } : {}) };
  });

  app.delete('/api/v1/accounts/:id', { schema: { tags: ['ai'], summary: 'Remove a provider account (superusers); its usage records stay', params: ID_PARAMS, response: { 200: DELETED_ACCOUNT } } }, async (req) => {
    requireSuperuser(principal(req));
    const r = await ctx.db.query<AccountRow>('DELETE FROM provider_accounts WHERE id = $1 RETURNING *', [(req.params as { id: string }).id]);
    if (!r.rows[0]) throw svcError('not_found', `Provider account ${(req.params as { id: string }).id} was not found.`);
    await ctx.caches.invalidate(ACCOUNTS_CACHE);
    return { ...accountView(r.rows[0]), deleted: true };
  });
}
