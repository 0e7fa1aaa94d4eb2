/**
 * The front of every provider-style route: the gateway key (401 `invalid_api_key`), the JSON body (400
 * `invalid_json`: malformed or not an object; the byte limit is fastify's, 413) and the model (400
 * `model_required`: missing or empty; 400 `invalid_model`: a control character or a lone surrogate, refused before
 * any limit or usage work). Refusals after the key is known still get a usage record.
 */
import type { FastifyRequest } from 'fastify';
import { svcError } from '../../core/errors.ts';
import type { StyleName } from '../../translators/model.ts';
import type { Gateway } from '../gateway.ts';
import type { GatewayKey } from '../keys/key-store.ts';
import { requestKey } from './request-key.ts';
import { CallRecorder } from '../pipeline/call-recorder.ts';
import type { GatewayCall } from '../pipeline/gateway-call.ts';

/** The caller's gateway key; a cached key comes back without a promise (this runs on every call). */
export function authenticate(gw: Gateway, req: FastifyRequest): GatewayKey | Promise<GatewayKey> {
  const secret = requestKey(req);
  if (secret === undefined) throw svcError('invalid_api_key', 'No gateway key: send it as Authorization: Bearer, x-api-key, x-goog-api-key or the key query parameter.');
  const found = gw.keys.find(secret);
  return found instanceof Promise ? found.then(known) : known(found);
}

function known(key: GatewayKey | undefined): GatewayKey {
  if (key === undefined) throw svcError('invalid_api_key', 'The gateway key is not valid (unknown, disabled or deleted).');
  return key;
}

export function jsonBody(req: FastifyRequest): { raw: Buffer; body: Record<string, unknown> } {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (raw.length === 0) throw svcError('invalid_json', 'The request body is empty; send a JSON object.');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw svcError('invalid_json');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw svcError('invalid_json', 'The request body must be a JSON object.');
  return { raw, body: body as Record<string, unknown> };
}

export function requireModel(model: unknown): string {
  if (typeof model !== 'string' || model.trim() === '') throw svcError('model_required', 'The request must name a model (a non-empty string).');
  return model;
}

// C0 controls and DEL: no model or alias has them, and a NUL cannot be stored in Postgres (a usage record with one
// used to block every later record of the node).
const CONTROL = /[\u0000-\u001f\u007f]/;

/** 400 `invalid_model` for a model name no model can have: a control character or a lone surrogate. */
function checkModelName(model: string): void {
  if (CONTROL.test(model) || !model.isWellFormed()) {
    throw svcError('invalid_model', `The model name ${JSON.stringify(model)} contains a control character or an invalid Unicode character.`);
  }
}

/** Builds the call, or records the refusal (the key is known by now) and rethrows it. */
export function buildCall(
  gw: Gateway, req: FastifyRequest, key: GatewayKey, style: StyleName, startedAt: number,
  read: () => Omit<GatewayCall, 'clientStyle' | 'key' | 'headers' | 'startedAt' | 'at'>,
): GatewayCall {
  const at = new Date();
  const facts = req.logFacts;
  if (facts !== null) {
    facts.key = key.id;
    facts.team = key.teamId;
  }
  try {
    const call: GatewayCall = { ...read(), clientStyle: style, key, headers: req.headers, startedAt, at, facts };
    checkModelName(call.model);
    return call;
  } catch (err) {
    const call: GatewayCall = {
      clientStyle: style, op: 'generate', key, model: '', stream: false, jsonArray: false, includeUsage: false,
      raw: Buffer.alloc(0), body: {}, headers: req.headers, startedAt, at, facts,
    };
    const status = (err as { status?: number }).status ?? 400;
    new CallRecorder(gw, call).finish({ status, errorCode: (err as { code?: string }).code ?? 'invalid_request' });
    throw err;
  }
}
