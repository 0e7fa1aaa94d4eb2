/**
 * The conversation a call belongs to, for sticky routing (a conversation stays on its account so the provider's
 * prompt cache keeps hitting; reference subscription-accounts.md "Rotation and stickiness"). In order:
 * 1. the explicit `X-Svc-Session` header;
 * 2. the messages style's `metadata.user_id` (coding agents put their session id there);
 * 3. `prompt_cache_key` (chat and responses styles);
 * 4. a hash of the system prompt and the first message (the start of a conversation never changes as it grows).
 * Keys are scoped by gateway key, so two keys never share a binding. Undefined when the call has nothing to go by.
 */
import { createHash } from 'node:crypto';
import type { GatewayCall } from '../pipeline/gateway-call.ts';

const MAX_EXPLICIT = 256;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' && v.length <= MAX_EXPLICIT ? v : undefined;
}

/** The system prompt and the first non-system message of any client style. */
function opening(body: Record<string, unknown>): unknown[] | undefined {
  const system = body.system ?? body.systemInstruction ?? body.system_instruction ?? body.instructions;
  // messages / contents / the responses style's input (a list of items, or one user text).
  const input = typeof body.input === 'string' ? [body.input] : body.input;
  const turns = (Array.isArray(body.messages) ? body.messages : Array.isArray(body.contents) ? body.contents : Array.isArray(input) ? input : []) as unknown[];
  const isSystem = (t: unknown) => {
    const role = (t as { role?: unknown })?.role;
    return role === 'system' || role === 'developer';
  };
  const first = turns.find((t) => !isSystem(t));
  const chatSystem = turns.filter(isSystem);
  if (first === undefined && system === undefined && chatSystem.length === 0) return undefined;
  return [system ?? null, chatSystem, first ?? null];
}

export function sessionKeyOf(call: GatewayCall): string | undefined {
  const scope = call.key.id;
  const header = str(call.headers['x-svc-session']);
  if (header) return `${scope}:s:${header}`;
  const userId = str((call.body.metadata as { user_id?: unknown } | undefined)?.user_id);
  if (userId) return `${scope}:u:${userId}`;
  const cacheKey = str(call.body.prompt_cache_key);
  if (cacheKey) return `${scope}:p:${cacheKey}`;
  const open = opening(call.body);
  if (!open) return undefined;
  return `${scope}:h:${createHash('sha256').update(JSON.stringify(open)).digest('base64url').slice(0, 32)}`;
}
