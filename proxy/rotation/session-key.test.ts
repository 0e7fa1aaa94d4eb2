import { describe, expect, it } from 'vitest';
import type { GatewayCall } from '../pipeline/gateway-call.ts';
import { sessionKeyOf } from './session-key.ts';

const call = (body: Record<string, unknown>, headers: Record<string, string> = {}, keyId = 'key_1') =>
  ({ key: { id: keyId }, body, headers }) as unknown as GatewayCall;

describe('sessionKeyOf', () => {
  it('prefers the header, then metadata.user_id, then prompt_cache_key', () => {
    const body = { metadata: { user_id: 'user_x_session_1' }, prompt_cache_key: 'pck', messages: [{ role: 'user', content: 'a' }] };
    expect(sessionKeyOf(call(body, { 'x-svc-session': 'S' }))).toBe('key_1:s:S');
    expect(sessionKeyOf(call(body))).toBe('key_1:u:user_x_session_1');
    expect(sessionKeyOf(call({ ...body, metadata: {} }))).toBe('key_1:p:pck');
  });

  it('hashes the opening of a conversation, the same as it grows, per gateway key', () => {
    const first = { system: 'S', messages: [{ role: 'user', content: 'hello' }] };
    const later = { system: 'S', messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }, { role: 'user', content: 'more' }] };
    const k = sessionKeyOf(call(first));
    expect(k).toMatch(/^key_1:h:/);
    expect(sessionKeyOf(call(later))).toBe(k);
    expect(sessionKeyOf(call({ ...first, system: 'T' }))).not.toBe(k);
    expect(sessionKeyOf(call(first, {}, 'key_2'))).not.toBe(k);
    const gem = { systemInstruction: { parts: [{ text: 'S' }] }, contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    expect(sessionKeyOf(call(gem))).toMatch(/^key_1:h:/);
    expect(sessionKeyOf(call({}))).toBeUndefined();
    const items = { instructions: 'S', input: [{ role: 'developer', content: 'D' }, { role: 'user', content: 'hello' }] };
    const grown = { ...items, input: [...items.input, { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }] };
    expect(sessionKeyOf(call(items))).toMatch(/^key_1:h:/);
    expect(sessionKeyOf(call(grown))).toBe(sessionKeyOf(call(items)));
    expect(sessionKeyOf(call({ input: 'hello' }))).not.toBe(sessionKeyOf(call({ input: 'bye' })));
  });
});
