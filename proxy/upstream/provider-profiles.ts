/**
 * What the gateway knows about each provider (DESIGN.md §2 "Provider accounts"): its wire style, its official base
 * URL (an account's base_url overrides it), how a call is authenticated, and the paths of its endpoints. Generic
 * code reads a profile; it never branches on a provider's name (STYLE.md c.1). Profiles are looked up as
 * `provider:kind` first, then `provider`: subscription plans (the responses style of ChatGPT plans, reference §F4)
 * add their own entries with their sign-in feature.
 */
import type { StyleName } from '../../translators/model.ts';

export interface ProviderProfile {
  /** `provider` or `provider:kind` this profile is for. */
  id: string;
  style: StyleName;
  defaultBaseUrl: string;
  /** Headers that carry the account's secret (replace whatever the client sent). */
  auth(secret: string): Record<string, string>;
  /** Headers sent when the request has none of its own (a same-style client's own values win). */
  defaults: Record<string, string>;
  /** Path and query of a generation call, after the base URL. */
  generatePath(model: string, stream: boolean): string;
  /** Path of the provider's token counting, when it has one. */
  countPath?(model: string): string;
  /** Path of the provider's model list. */
  modelsPath: string;
}

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

const openaiChat: ProviderProfile = {
  id: 'openai',
  style: 'chat',
  defaultBaseUrl: 'https://api.openai.com/v1',
  auth: bearer,
  defaults: {},
  generatePath: () => '/chat/completions',
  modelsPath: '/models',
};

const PROFILES: Record<string, ProviderProfile> = {
  anthropic: {
    id: 'anthropic',
    style: 'messages',
    defaultBaseUrl: 'https://api.anthropic.com',
    auth: (secret) => ({ 'x-api-key': secret }),
    defaults: { 'anthropic-version': '2023-06-01' },
    generatePath: () => '/v1/messages',
    countPath: () => '/v1/messages/count_tokens',
    modelsPath: '/v1/models',
  },
  openai: openaiChat,
  'openai-compatible': { ...openaiChat, id: 'openai-compatible', defaultBaseUrl: '' },
  gemini: {
    id: 'gemini',
    style: 'generative',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
    auth: (secret) => ({ 'x-goog-api-key': secret }),
    defaults: {},
    // Streams are always asked as SSE: one parser for every upstream (a JSON-array client is re-framed).
    generatePath: (model, stream) => `/v1beta/models/${encodeURIComponent(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    countPath: (model) => `/v1beta/models/${encodeURIComponent(model)}:countTokens`,
    modelsPath: '/v1beta/models',
  },
};

/** The profile of an account, or undefined when the gateway cannot call it yet. */
export function profileOf(provider: string, kind: string): ProviderProfile | undefined {
  return PROFILES[`${provider}:${kind}`] ?? PROFILES[provider];
}
