/**
 * Call-body logging per key (log_bodies off | 1d | 7d | 30d): bodies are kept only for keys that ask, streams as
 * the assembled answer, read by the owner team only, deleted at once when the key switches to off, and removed by
 * the expiry job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_BODIES_EXPIRY_JOB } from '../../control-plane/calls/calls-routes.ts';
import { bearer, createTeam, createUser, setRole, tokenFor } from '../api/identity-fixtures.ts';
import { CHAT_BODY, MESSAGES_BODY, eventually, startLimitsEnv, type LimitsEnv } from './limits-env.ts';

let env: LimitsEnv;
let member: Record<string, string>;
let outsider: Record<string, string>;

interface CallItem {
  id: string;
  key: string;
  stream: boolean;
  status: number;
  client_style: string;
  request: unknown;
  response: unknown;
  expires_at: string;
  created_at: string;
}

beforeAll(async () => {
  env = await startLimitsEnv();
  const ann = await createUser(env.s, 'ann');
  const bob = await createUser(env.s, 'bob');
  await setRole(env.s, env.teamId, ann, 'member');
  const other = await createTeam(env.s, 'other');
  await setRole(env.s, other, bob, 'member');
  member = bearer((await tokenFor(env.s, ann, 'read')).secret);
  outsider = bearer((await tokenFor(env.s, bob, 'read')).secret);
});
afterAll(async () => env?.close());

const list = async (keyId: string, headers = member): Promise<CallItem[]> => {
  const r = await env.s.api('GET', `/api/v1/calls?key=${keyId}`, undefined, headers);
  expect(r.statusCode, r.body).toBe(200);
  return r.json().items as CallItem[];
};
const until = (keyId: string, n: number) => eventually(async () => {
  const items = await list(keyId);
  return items.length >= n ? items : undefined;
});

describe('kept call bodies', () => {
  let keyId: string;

  it('keeps request and answer of a key with log_bodies, streams as the assembled answer in the client style', async () => {
    const k = await env.key({ log_bodies: '7d' });
    keyId = k.id;
    expect((await env.chatCall(k.secret)).status).toBe(200);
    const streamed = await env.chatCall(k.secret, { ...CHAT_BODY, stream: true, messages: [{ role: 'user', content: 'streamed' }] });
    expect(await streamed.text()).toContain('[DONE]');
    // Messages client, chat upstream: a translated stream.
    const translated = await env.messagesCall(k.secret, { ...MESSAGES_BODY, model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'across' }] });
    expect(await translated.text()).toContain('message_stop');
    const items = await until(k.id, 3);
    expect(items).toHaveLength(3);
    expect(items.every((i) => i.status === 200 && i.request === undefined)).toBe(true);
    const days = (Date.parse(items[0].expires_at) - Date.parse(items[0].created_at)) / 86_400_000;
    expect(days).toBeCloseTo(7, 5);

    const detail = async (id: string) => {
      const r = await env.s.api('GET', `/api/v1/calls/${id}`, undefined, member);
      expect(r.statusCode, r.body).toBe(200);
      return r.json() as CallItem;
    };
    const [across, stream, whole] = [await detail(items[0].id), await detail(items[1].id), await detail(items[2].id)];
    expect(whole.request).toEqual(CHAT_BODY);
    expect(whole.response).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Echo: hi' } }] });
    expect(stream.stream).toBe(true);
    expect(stream.response).toMatchObject({ object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'Echo: streamed' } }] });
    expect(across.client_style).toBe('messages');
    expect(across.response).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Echo: across' }] });
  });

  it('keeps a responses-style stream as the assembled response object', async () => {
    const k = await env.key({ log_bodies: '7d' });
    const body = { model: 'claude-sonnet-4-6', stream: true, input: 'responses across' };
    const res = await fetch(`${env.s.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${k.secret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(await res.text()).toContain('response.completed');
    const [item] = await until(k.id, 1);
    const r = await env.s.api('GET', `/api/v1/calls/${item.id}`, undefined, member);
    expect(r.json()).toMatchObject({
      client_style: 'responses', stream: true, request: body,
      response: { object: 'response', status: 'completed', output: [{ type: 'message', content: [{ type: 'output_text', text: 'Echo: responses across' }] }] },
    });
  });

  it('keeps nothing for a key with log_bodies off', async () => {
    const k = await env.key();
    expect((await env.chatCall(k.secret)).status).toBe(200);
    await env.usage(k.id, 1);
    await new Promise((r) => setTimeout(r, 700));
    expect(await list(k.id)).toEqual([]);
  });

  it('is readable by the owner team only (not other teams, not superusers outside the team)', async () => {
    const [first] = await list(keyId);
    expect((await env.s.api('GET', `/api/v1/calls/${first.id}`, undefined, outsider)).statusCode).toBe(404);
    expect(await list(keyId, outsider)).toEqual([]);
    expect((await env.s.api('GET', `/api/v1/calls/${first.id}`)).statusCode).toBe(404);
  });

  it('deletes the key bodies at once when it switches to off, and keeps no more', async () => {
    const k = await env.key({ log_bodies: '1d' });
    await env.chatCall(k.secret);
    await until(k.id, 1);
    const off = await env.s.api('PATCH', `/api/v1/keys/${k.id}`, { log_bodies: 'off' });
    expect(off.statusCode, off.body).toBe(200);
    expect(await list(k.id)).toEqual([]);
    expect((await env.s.db.query('SELECT count(*)::int AS n FROM call_bodies WHERE key_id = $1', [k.id])).rows[0]).toEqual({ n: 0 });
    await env.chatCall(k.secret);
    await env.usage(k.id, 2);
    await new Promise((r) => setTimeout(r, 700));
    expect((await env.s.db.query('SELECT count(*)::int AS n FROM call_bodies WHERE key_id = $1', [k.id])).rows[0]).toEqual({ n: 0 });
  });

  it('shortens the expiry of kept bodies when the retention gets shorter', async () => {
    const before = await list(keyId);
    expect((await env.s.api('PATCH', `/api/v1/keys/${keyId}`, { log_bodies: '1d' })).statusCode).toBe(200);
    const after = await list(keyId);
    expect(after.map((i) => (Date.parse(i.expires_at) - Date.parse(i.created_at)) / 86_400_000)).toEqual(before.map(() => 1));
  });

  it('hides expired bodies and the expiry job deletes them', async () => {
    const items = await list(keyId);
    await env.s.db.query("UPDATE call_bodies SET expires_at = now() - interval '1 minute' WHERE id = $1", [items[0].id]);
    expect((await list(keyId)).map((i) => i.id)).not.toContain(items[0].id);
    expect((await env.s.api('GET', `/api/v1/calls/${items[0].id}`, undefined, member)).statusCode).toBe(404);
    await env.s.scheduler.runNow(CALL_BODIES_EXPIRY_JOB);
    const left = await env.s.db.query<{ id: string }>('SELECT id FROM call_bodies WHERE key_id = $1', [keyId]);
    expect(left.rows.map((r) => r.id).sort()).toEqual(items.slice(1).map((i) => i.id).sort());
  });
});
