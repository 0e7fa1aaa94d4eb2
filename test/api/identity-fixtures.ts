/** Users, memberships and tokens for identity tests, made through the API with the admin token. */
import { expect } from 'vitest';
import type { TestServer } from '../support/test-server.ts';

export const PASSWORD = 'correct horse battery staple';

export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

/** Asserts the family error object with this status and code. */
export function expectError(res: { statusCode: number; json(): unknown }, status: number, code: string): void {
  const body = res.json() as ErrorBody;
  expect({ status: res.statusCode, code: body.error?.code }).toEqual({ status, code });
  expect(body.error.message).toMatch(/\w/);
  expect(typeof body.error.details).toBe('object');
}

export async function createUser(s: TestServer, username: string, opts: { superuser?: boolean; password?: string } = {}): Promise<string> {
  const res = await s.api('POST', '/api/v1/users', { username, password: opts.password ?? PASSWORD, is_superuser: opts.superuser ?? false });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

export async function createTeam(s: TestServer, name: string): Promise<string> {
  const res = await s.api('POST', '/api/v1/teams', { name });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

export async function setRole(s: TestServer, team: string, user: string, role: string): Promise<void> {
  const res = await s.api('PUT', `/api/v1/teams/${team}/members/${user}`, { role });
  expect(res.statusCode, res.body).toBe(200);
}

/** A fresh API token of the user (created by the admin token); returns the secret and the token id. */
export async function tokenFor(s: TestServer, user: string, scope: 'read' | 'deploy' | 'write', ttl: string | number = '1d'): Promise<{ secret: string; id: string }> {
  const res = await s.api('POST', '/api/v1/tokens', { name: `${user}-${scope}`, scope, ttl, user });
  expect(res.statusCode, res.body).toBe(201);
  return { secret: res.json().token as string, id: res.json().id as string };
}

export const bearer = (secret: string): Record<string, string> => ({ authorization: `Bearer ${secret}` });
