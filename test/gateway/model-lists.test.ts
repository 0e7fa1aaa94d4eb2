/**
 * Model lists in each style (GET /v1/models for chat and messages clients, GET /v1beta/models) with the official
 * SDKs' list calls: an account that names no models and whose provider's list cannot be read still lists the
 * catalog's models of its style (a model picker must show what the gateway would route there); account patterns
 * are resolved against the catalog; the key's allow-list filters; context sizes are given where known.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let s: TestServer;
let silent: Server;
let secret: string;

beforeAll(async () => {
  // An OpenAI-compatible server that answers 404 to everything, its model list included.
  silent = createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope"}'));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  s = await startTestServer({ listen: true, env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'true' } });
  const compatible = await s.api('POST', '/api/v1/accounts', { name: 'compat', provider: 'openai-compatible', api_key: 'sk-compat-0123456789abcdef', base_url: `${base}/v1` });
  expect(compatible.statusCode, compatible.body).toBe(201);
  const claude = await s.api('POST', '/api/v1/accounts', { name: 'claude', provider: 'anthropic', api_key: 'sk-ant-0123456789abcdef', base_url: base, models: ['claude-haiku-*'] });
  expect(claude.statusCode, claude.body).toBe(201);
  const team = await s.api('POST', '/api/v1/teams', { name: 'lists' });
  expect(team.statusCode, team.body).toBe(201);
  const k = await s.api('POST', '/api/v1/keys', { name: 'lists', models: ['gpt-4o*', 'claude-*'] }, { 'x-svc-team': 'lists' });
  expect(k.statusCode, k.body).toBe(201);
  secret = k.json().key;
});
afterAll(async () => {
  await s?.close();
  await new Promise((r) => silent?.close(r));
});

describe('model lists', () => {
  it('chat style: the catalog models of an account whose list cannot be read, filtered by the key, with context sizes', async () => {
    const client = new OpenAI({ apiKey: secret, baseURL: `${s.url}/v1`, maxRetries: 0 });
    const models: Array<{ id: string; context_window?: number }> = [];
    for await (const m of client.models.list()) models.push(m as { id: string; context_window?: number });
    const ids = models.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['gpt-4o', 'gpt-4o-mini', 'claude-haiku-4-5']));
    expect(ids).not.toContain('gpt-5');
    expect(ids).not.toContain('claude-sonnet-4-6');
    expect(models.find((m) => m.id === 'gpt-4o-mini')?.context_window).toBe(128_000);
    expect(models.find((m) => m.id === 'claude-haiku-4-5')?.context_window).toBe(200_000);
  });

  it('messages style, with the anthropic SDK', async () => {
    const client = new Anthropic({ apiKey: secret, baseURL: s.url, maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(expect.arrayContaining(['claude-haiku-4-5', 'gpt-4o-mini']));
  });

  it('generative style, with the google SDK: inputTokenLimit', async () => {
    const ai = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: s.url } });
    const found: Array<{ name?: string; inputTokenLimit?: number }> = [];
    for await (const m of await ai.models.list()) found.push(m);
    expect(found.find((m) => m.name === 'models/gpt-4o')?.inputTokenLimit).toBe(128_000);
  });
});
