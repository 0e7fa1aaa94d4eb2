/**
 * Stored responses (docs/gateway.md "Stored responses") with the official openai SDK, on every upstream style:
 * `previous_response_id` sends the whole earlier conversation upstream, `item_reference` resolves to the stored item,
 * `responses.retrieve`, `inputItems.list` and `delete` work, and on a second node sharing the database too. What
 * cannot be resolved is refused and named, never dropped; another key's response is 404; an expired one says so;
 * `store: false` and a key whose store is off keep nothing.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecondNode } from '../support/second-node.ts';
import type { Server } from '../../server/build-server.ts';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
let client: OpenAI;
beforeAll(async () => {
  g = await startGatewayEnv();
  client = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
}, 60_000);
afterAll(async () => g?.close());

type ApiError = InstanceType<typeof OpenAI.APIError>;
const refusal = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a refusal'); }, (e: ApiError) => ({ status: e.status, code: e.code, message: e.message, param: e.param }));

/** The texts of every message the upstream received in its last call, in order (any style). */
function upstreamTexts(fake: GatewayEnv['chat']): string[] {
  const text = JSON.stringify(fake.calls[fake.calls.length - 1].body);
  return [...text.matchAll(/(first question|second question|third question|Echo: [a-z ]+)/g)].map((m) => m[1]);
}

describe.each([
  ['chat upstream', 'gpt-4o-mini', () => g.chat],
  ['messages upstream', 'claude-haiku-4-5', () => g.messages],
  ['generative upstream', 'gemini-2.5-flash', () => g.generative],
])('stored responses, %s', (_name, model, fake) => {
  it('chains previous_response_id across turns (JSON and streamed) and keeps the transcript', async () => {
    const first = await client.responses.create({ model, input: 'first question' });
    expect(first.output_text).toBe('Echo: first question');
    const second = await client.responses.create({ model, input: 'second question', previous_response_id: first.id });
    expect(second.output_text).toBe('Echo: second question');
    expect(upstreamTexts(fake())).toEqual(['first question', 'Echo: first question', 'second question']);

    const stream = await client.responses.create({ model, input: 'third question', previous_response_id: second.id, stream: true });
    let done: OpenAI.Responses.Response | undefined;
    for await (const ev of stream) if (ev.type === 'response.completed') done = ev.response;
    expect(JSON.stringify(done?.output)).toContain('Echo: third question');
    expect(upstreamTexts(fake())).toEqual(['first question', 'Echo: first question', 'second question', 'Echo: second question', 'third question']);

    // The streamed answer was stored before its last event reached us: the next turn finds it at once.
    const fourth = await client.responses.create({ model, input: 'more', previous_response_id: done!.id });
    expect(fourth.status).toBe('completed');
  });

  it('resolves an item_reference to the stored item', async () => {
    const first = await client.responses.create({ model, input: 'first question' });
    const itemId = first.output[0].id!;
    await client.responses.create({ model, input: [{ role: 'user', content: 'first question' }, { type: 'item_reference', id: itemId }, { role: 'user', content: 'second question' }] });
    expect(upstreamTexts(fake())).toEqual(['first question', 'Echo: first question', 'second question']);
  });
});

describe('stored responses: retrieve, list input items, delete', () => {
  it('retrieves what was answered, lists its input, deletes it', async () => {
    const first = await client.responses.create({ model: 'gpt-4o-mini', input: 'first question' });
    const second = await client.responses.create({ model: 'gpt-4o-mini', input: 'second question', previous_response_id: first.id });
    const got = await client.responses.retrieve(second.id);
    expect(got).toMatchObject({ id: second.id, status: 'completed', output_text: 'Echo: second question' });
    const items = await client.responses.inputItems.list(second.id);
    expect(items.data.length).toBe(3);
    await client.responses.delete(second.id);
    expect(await refusal(client.responses.retrieve(second.id))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await refusal(client.responses.create({ model: 'gpt-4o-mini', input: 'x', previous_response_id: second.id }))).toMatchObject({ status: 400, code: 'response_reference_unresolved', param: 'previous_response_id' });
  });

  it('refuses what cannot be resolved, naming it', async () => {
    expect(await refusal(client.responses.create({ model: 'gpt-4o-mini', input: [{ role: 'user', content: 'a' }, { type: 'item_reference', id: 'msg_never' }] })))
      .toMatchObject({ status: 400, code: 'response_reference_unresolved', param: 'input[1]', message: expect.stringContaining('msg_never') });
    expect(await refusal(client.responses.create({ model: 'gpt-4o-mini', input: 'a', previous_response_id: 'resp_never' })))
      .toMatchObject({ status: 400, code: 'response_reference_unresolved' });
  });

  it('keeps nothing for store: false', async () => {
    const r = await client.responses.create({ model: 'gpt-4o-mini', input: 'not kept', store: false });
    expect(await refusal(client.responses.retrieve(r.id))).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('answers 404 for another key\'s response, and says when one expired', async () => {
    const mine = await client.responses.create({ model: 'gpt-4o-mini', input: 'first question' });
    const k = await g.s.api('POST', '/api/v1/keys', { name: 'other' }, { 'x-svc-team': 'gw' });
    const other = new OpenAI({ apiKey: k.json().key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
    expect(await refusal(other.responses.retrieve(mine.id))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await refusal(other.responses.create({ model: 'gpt-4o-mini', input: 'x', previous_response_id: mine.id }))).toMatchObject({ status: 404, code: 'not_found' });

    await g.s.db.query("UPDATE stored_responses SET expires_at = now() - interval '1 minute' WHERE id = $1 AND key_id = $2", [mine.id, g.keyId]);
    const expired = await refusal(client.responses.create({ model: 'gpt-4o-mini', input: 'x', previous_response_id: mine.id }));
    expect(expired).toMatchObject({ status: 404, code: 'not_found', message: expect.stringContaining('expired') });
  });

  it('a key whose store is off keeps nothing and refuses references; turning it off deletes what it kept', async () => {
    const k = await g.s.api('POST', '/api/v1/keys', { name: 'forgetful' }, { 'x-svc-team': 'gw' });
    const c = new OpenAI({ apiKey: k.json().key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
    const kept = await c.responses.create({ model: 'gpt-4o-mini', input: 'first question' });
    const keyId = k.json().id as string;
    const stored = async () => (await g.s.db.query('SELECT id FROM stored_responses WHERE key_id = $1', [keyId])).rows.length;
    expect(await stored()).toBe(1);
    const off = await g.s.api('PATCH', `/api/v1/keys/${k.json().id}`, { response_store_ttl: 'off' });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().response_store_ttl).toBe('off');
    expect(await stored()).toBe(0);
    const { response } = await c.responses.create({ model: 'gpt-4o-mini', input: 'not kept', store: true }).withResponse();
    expect(response.headers.get('x-svc-warning')).toContain('store: true was ignored');
    expect(await stored()).toBe(0);
    expect(await refusal(c.responses.create({ model: 'gpt-4o-mini', input: 'x', previous_response_id: kept.id }))).toMatchObject({ status: 400, code: 'response_state_unsupported' });
  });
});

describe.skipIf(!process.env.DATABASE_URL || !process.env.REDIS_URL)('stored responses on a second node', () => {
  let other: Server;
  let otherUrl: string;
  beforeAll(async () => {
    other = await startSecondNode(g.s);
    otherUrl = await other.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => other?.close());

  it('a response stored through one node is chained and retrieved through another', async () => {
    const first = await client.responses.create({ model: 'gpt-4o-mini', input: 'first question' });
    const there = new OpenAI({ apiKey: g.key, baseURL: `${otherUrl}/v1`, maxRetries: 0 });
    expect((await there.responses.retrieve(first.id)).output_text).toBe('Echo: first question');
    const next = await there.responses.create({ model: 'gpt-4o-mini', input: 'second question', previous_response_id: first.id });
    expect(next.output_text).toBe('Echo: second question');
    expect(upstreamTexts(g.chat)).toEqual(['first question', 'Echo: first question', 'second question']);
  });
});
