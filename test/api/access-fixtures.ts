/** Teams, users, roles and tokens made through the API with the admin token (webhooks, search and MCP tests). */
import { expect } from 'vitest';
import type { TestServer } from '../support/test-server.ts';

export function expectErrorCode(res: { statusCode: number; json(): unknown }, status: number, code: string): void {
  const body = res.json() as { error?: { code: string; message: string; details: unknown } };
  expect({ status: res.statusCode, code: body.error?.code }).toEqual({ status, code });
  expect(body.error?.message).toMatch(/\w/);
  expect(typeof body.error?.details).toBe('object');
}

export async function makeTeam(s: TestServer, name: string): Promise<string> {
  const res = await s.api('POST', '/api/v1/teams', { name });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

/** A user with a role in each given team, and a token of the given scope; returns the bearer headers. */
export async function makeUser(s: TestServer, username: string, roles: Record<string, string>, scope: 'read' | 'deploy' | 'write' = 'write'): Promise<{ id: string; headers: Record<string, string> }> {
  const u = await s.api('POST', '/api/v1/users', { username, password: 'correct horse battery staple' });
  expect(u.statusCode, u.body).toBe(201);
  const id = u.json().id as string;
  for (const [team, role] of Object.entries(roles)) {
    const r = await s.api('PUT', `/api/v1/teams/${team}/members/${id}`, { role });
    expect(r.statusCode, r.body).toBe(200);
  }
  const t = await s.api('POST', '/api/v1/tokens', { name: `${username}-${scope}`, scope, ttl: '1d', user: id });
  expect(t.statusCode, t.body).toBe(201);
  return { id, headers: { authorization: `Bearer ${t.json().token as string}` } };
}
