/**
 * `GET /v1/models` and `GET /v1beta/models`: the models a key may use (issue 3 point 1), aliases included, in the
 * caller's shape. Model ids come from the accounts' explicit lists (patterns cannot be listed) and the providers'
 * fetched model lists; an alias is listed when the key may use it.
 */
import { svcError } from '../../core/errors.ts';
import type { StyleName } from '../../translators/model.ts';
import type { Gateway } from '../gateway.ts';
import type { GatewayKey } from '../keys/key-store.ts';
import { isPattern } from '../../core/ai/model-pattern.ts';

export interface ListedModel {
  id: string;
  ownedBy: string;
}

export async function modelsForKey(gw: Gateway, key: GatewayKey): Promise<ListedModel[]> {
  const [aliases, snap] = await Promise.all([gw.routing.aliases(), gw.routing.snapshot()]);
  const out = new Map<string, ListedModel>();
  for (const a of snap.accounts) {
    const ids = a.models.length > 0 ? a.models.filter((m) => !isPattern(m)) : (a.modelList ?? []);
    for (const id of ids) if (!out.has(id) && key.allows(id)) out.set(id, { id, ownedBy: a.provider });
  }
  for (const [name, targets] of aliases) {
    if (key.allows(name) || targets.every((m) => key.allows(m))) out.set(name, { id: name, ownedBy: 'svc-alias' });
  }
  return [...out.values()].sort((a, b) => a.id.localeCompare(b.id));
}

const CREATED = 1_700_000_000;

export function chatModelList(models: ListedModel[]): object {
  return { object: 'list', data: models.map((m) => ({ id: m.id, object: 'model', created: CREATED, owned_by: m.ownedBy })) };
}

export function messagesModelList(models: ListedModel[]): object {
  const data = models.map((m) => ({ type: 'model', id: m.id, display_name: m.id, created_at: new Date(CREATED * 1000).toISOString() }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
}

export function generativeModel(m: ListedModel): object {
  return {
    name: `models/${m.id}`, version: '001', displayName: m.id, description: `Served by ${m.ownedBy} through the svc gateway.`,
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
  if (style === 'messages') return { type: 'model', id: m.id, display_name: m.id, created_at: new Date(CREATED * 1000).toISOString() };
  return { id: m.id, object: 'model', created: CREATED, owned_by: m.ownedBy };
}

/** A model list in the caller's shape. */
export function modelListOf(style: StyleName, models: ListedModel[]): object {
  if (style === 'generative') return generativeModelList(models);
  if (style === 'messages') return messagesModelList(models);
  return chatModelList(models);
}
