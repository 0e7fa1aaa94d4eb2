/**
 * `GET /v1/models` and `GET /v1beta/models`: the models a key may use, aliases included, in the caller's shape, with
 * context sizes where known (core/ai/model-catalog.ts). An account's models are its explicit ids; the models of the
 * catalog its patterns match; else the list fetched from its provider; else, when that could not be read (an
 * `openai-compatible` account given only a base URL), the catalog's models of the style it speaks — the gateway
 * sends it those models, so a model picker must see them. An alias is listed when the key may use it.
 */
import { svcError } from '../../core/errors.ts';
import { MODEL_CATALOG, catalogModel, type CatalogProvider } from '../../core/ai/model-catalog.ts';
import { isPattern, matchesModel } from '../../core/ai/model-pattern.ts';
import type { StyleName } from '../../translators/model.ts';
import type { Gateway } from '../gateway.ts';
import type { GatewayKey } from '../keys/key-store.ts';
import type { UpstreamAccount } from '../accounts/upstream-account.ts';

export interface ListedModel {
  id: string;
  ownedBy: string;
  contextWindow?: number;
}

const CATALOG_OF_STYLE: Partial<Record<StyleName, CatalogProvider>> = { chat: 'openai', responses: 'openai', messages: 'anthropic', generative: 'gemini' };

/** The model ids an account can be listed with (see the module header). */
export function listableModels(a: Pick<UpstreamAccount, 'models' | 'modelList' | 'style'>): string[] {
  if (a.models.length > 0) {
    const ids = a.models.filter((m) => !isPattern(m));
    const patterns = a.models.filter((m) => isPattern(m) && m.replaceAll('*', '') !== '');
    for (const m of MODEL_CATALOG) if (patterns.some((p) => matchesModel(p, m.id))) ids.push(m.id);
    return ids;
  }
  if (a.modelList) return [...a.modelList];
  const provider = CATALOG_OF_STYLE[a.style];
  return MODEL_CATALOG.filter((m) => m.provider === provider).map((m) => m.id);
}

export async function modelsForKey(gw: Gateway, key: GatewayKey): Promise<ListedModel[]> {
  const [aliases, snap] = await Promise.all([gw.routing.aliases(), gw.routing.snapshot()]);
  const out = new Map<string, ListedModel>();
  for (const a of snap.accounts) {
    for (const id of listableModels(a)) {
      if (out.has(id) || !key.allows(id)) continue;
      const contextWindow = catalogModel(id)?.contextWindow;
      out.set(id, { id, ownedBy: a.provider, ...(contextWindow !== undefined ? { contextWindow } : {}) });
    }
  }
  for (const [name, targets] of aliases) {
    if (!key.allows(name) && !targets.every((m) => key.allows(m))) continue;
    // An alias holds as much context as its smallest known target.
    const windows = targets.map((m) => catalogModel(m)?.contextWindow);
    const contextWindow = windows.every((w) => w !== undefined) && windows.length > 0 ? Math.min(...(windows as number[])) : undefined;
    out.set(name, { id: name, ownedBy: 'svc-alias', ...(contextWindow !== undefined ? { contextWindow } : {}) });
  }
  return [...out.values()].sort((a, b) => a.id.localeCompare(b.id));
}

const CREATED = 1_700_000_000;

// Context sizes: chat and messages shapes have no field of their own, so `context_window` is added (clients ignore
// unknown fields); the generative shape has `inputTokenLimit`.
const contextField = (m: ListedModel) => (m.contextWindow !== undefined ? { context_window: m.contextWindow } : {});

const chatModel = (m: ListedModel) => ({ id: m.id, object: 'model', created: CREATED, owned_by: m.ownedBy, ...contextField(m) });
const messagesModel = (m: ListedModel) => ({ type: 'model', id: m.id, display_name: m.id, created_at: new Date(CREATED * 1000).toISOString(), ...contextField(m) });

export function chatModelList(models: ListedModel[]): object {
  return { object: 'list', data: models.map(chatModel) };
}

export function messagesModelList(models: ListedModel[]): object {
  const data = models.map(messagesModel);
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
}

export function generativeModel(m: ListedModel): object {
  return {
    name: `models/${m.id}`, version: '001', displayName: m.id, description: `Served by ${m.ownedBy} through the svc gateway.`,
    ...(m.contextWindow !== undefined ? { inputTokenLimit: m.contextWindow } : {}),
    supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
  };
}

export function generativeModelList(models: ListedModel[]): object {
  return { models: models.map(generativeModel) };
}

/** One model in the caller's shape (`GET /v1/models/{id}`, `GET /v1beta/models/{id}`); 404 when the key cannot use it. */
export async function modelReply(gw: Gateway, key: GatewayKey, id: string, style: StyleName): Promise<object> {
  const bare = id.startsWith('models/') ? id.slice('models/'.length) : id;
  const m = (await modelsForKey(gw, key)).find((x) => x.id === bare);
  if (!m) throw svcError('model_not_found', `The model "${bare}" is not available to this key.`);
  if (style === 'generative') return generativeModel(m);
  if (style === 'messages') return messagesModel(m);
  return chatModel(m);
}

/** A model list in the caller's shape. */
export function modelListOf(style: StyleName, models: ListedModel[]): object {
  if (style === 'generative') return generativeModelList(models);
  if (style === 'messages') return messagesModelList(models);
  return chatModelList(models);
}
