/**
 * Provider accounts of kind `subscription` as the gateway calls them: the plan's backend (profile api_base_url, or
 * the account's base_url), its wire style, and a `send` that authenticates each call with the account's current
 * OAuth token (subscription-send.ts) through the account's dispatcher: the origin's pool, or its outbound proxy.
 *
 * | provider  | plan               | style      | generation path                        |
 * |-----------|--------------------|------------|----------------------------------------|
 * | anthropic | Claude Pro/Max     | messages   | /v1/messages                           |
 * | openai    | ChatGPT (Codex)    | responses  | /responses                             |
 * | gemini    | Code Assist        | generative | /v1internal:generateContent (wrapped)  |
 */
import type { AppContext } from '../../core/context.ts';
import { allowsModel } from '../../core/ai/model-pattern.ts';
import { isSubscriptionProvider, subscriptionProfile, type SubscriptionProvider } from '../../core/ai/provider-profiles.ts';
import type { TokenManager } from '../../core/ai/subscriptions/token-manager.ts';
import type { AccountRow, UpstreamAccount } from '../accounts/upstream-account.ts';
import type { Dispatchers } from '../upstream/dispatchers.ts';
import type { ProviderProfile } from '../upstream/provider-profiles.ts';
import { basePath } from '../upstream/upstream-interceptors.ts';
import { chatgptPlanAdapter } from './chatgpt-plan-adapter.ts';
import { claudePlanAdapter } from './claude-plan-adapter.ts';
import { codeAssistAdapter } from './code-assist-adapter.ts';
import type { PlanAdapter } from './plan-adapter.ts';
import { subscriptionSend } from './subscription-send.ts';

const noAuth = () => ({});

/** How each plan's backend is called (the wire side; sign-in and quota live in core/ai/provider-profiles.ts). */
const PLANS: Record<SubscriptionProvider, { wire: Omit<ProviderProfile, 'defaultBaseUrl'>; adapter: PlanAdapter }> = {
  anthropic: {
    wire: {
      id: 'anthropic:subscription', style: 'messages', auth: noAuth, defaults: {},
      generatePath: () => '/v1/messages', countPath: () => '/v1/messages/count_tokens', modelsPath: '/v1/models',
    },
    adapter: claudePlanAdapter,
  },
  openai: {
    wire: { id: 'openai:subscription', style: 'responses', auth: noAuth, defaults: {}, generatePath: () => '/responses', modelsPath: '/models' },
    adapter: chatgptPlanAdapter,
  },
  gemini: {
    wire: {
      id: 'gemini:subscription', style: 'generative', auth: noAuth, defaults: {},
      // Named like the generative-language style; the Code Assist adapter rewrites it to /v1internal:… with the model in the body.
      generatePath: (model, stream) => `/models/${encodeURIComponent(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      modelsPath: '/v1internal:listModels',
    },
    adapter: codeAssistAdapter,
  },
};

export interface SubscriptionAccountDeps {
  ctx: AppContext;
  dispatchers: Dispatchers;
  tokens: TokenManager;
}

/** Builds the account, or returns a sentence saying why it cannot be used. */
export function buildSubscriptionAccount(row: AccountRow, deps: SubscriptionAccountDeps): UpstreamAccount | string {
  if (!isSubscriptionProvider(row.provider)) return `provider ${row.provider} has no subscription plans`;
  const provider = row.provider;
  const profile = subscriptionProfile(deps.ctx.config.providerProfiles, provider);
  const plan = PLANS[provider];
  const base = row.base_url || profile.api_base_url;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return `base URL ${base} is not a URL`;
  }
  const dispatcher = deps.dispatchers.for(url.origin, row.proxy_url).compose(basePath(url.pathname.replace(/\/+$/, '')));
  const modelList = Array.isArray(row.model_list) ? row.model_list.filter((m): m is string => typeof m === 'string') : null;
  const models = row.models ?? [];
  const listed = modelList ? new Set(modelList) : null;
  const send = subscriptionSend(
    { id: row.id, provider, proxyUrl: row.proxy_url, origin: url.origin, dispatcher },
    { ctx: deps.ctx, tokens: deps.tokens, adapter: plan.adapter, profile },
  );
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    kind: row.kind,
    style: plan.wire.style,
    profile: { ...plan.wire, defaultBaseUrl: profile.api_base_url },
    origin: url.origin,
    dispatcher,
    weight: row.weight,
    priority: row.priority,
    models,
    modelList,
    serves(model) {
      if (models.length > 0) return allowsModel(models, model);
      return listed === null || listed.has(model);
    },
    send,
  };
}
