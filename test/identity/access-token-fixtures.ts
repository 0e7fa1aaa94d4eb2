/** Signing in through the device grant (approved with the password), as `svc login` does, for access token tests. */
import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { PASSWORD } from '../api/identity-fixtures.ts';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

interface Injector {
  app: { inject(opts: { method: 'POST'; url: string; headers: Record<string, string>; payload: string }): Promise<LightMyRequestResponse> };
}

/** POST a form to an OAuth endpoint, as OAuth clients do. */
export function oauthPost(s: Injector, path: string, params: Record<string, string>): Promise<LightMyRequestResponse> {
  return s.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(params).toString() });
}

export interface SignedIn {
  access: string;
  refresh: string;
  expiresIn: number;
}

export async function signIn(s: Injector, username: string, scope = 'write'): Promise<SignedIn> {
  const start = await oauthPost(s, '/oauth/device_authorization', { client_id: 'svc-cli', scope });
  expect(start.statusCode, start.body).toBe(200);
  const { device_code, user_code } = start.json() as { device_code: string; user_code: string };
  const ok = await s.app.inject({ method: 'POST', url: '/api/v1/auth/device/approve', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ user_code, username, password: PASSWORD }) });
  expect(ok.statusCode, ok.body).toBe(200);
  const res = await oauthPost(s, '/oauth/token', { grant_type: DEVICE_GRANT, device_code });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json() as { access_token: string; refresh_token: string; expires_in: number };
  return { access: body.access_token, refresh: body.refresh_token, expiresIn: body.expires_in };
}
