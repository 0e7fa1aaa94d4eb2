/** A listening server pointed at fresh fakes of the apps and pages services, and links made with the admin token. */
import { expect } from 'vitest';
import type { Clock } from '../../../core/clock.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';
import { startFakePeers, type FakeDeploy, type FakePeers } from './fake-peer.ts';

export async function startWithPeers(opts: { clock?: Clock; env?: Record<string, string> } = {}): Promise<{ s: TestServer; peers: FakePeers }> {
  const peers = await startFakePeers();
  const s = await startTestServer({ listen: true, clock: opts.clock, env: { ...peers.env, ...opts.env } });
  peers.trust(s.url);
  return { s, peers };
}

/** Adds the app and the alias to the fakes (with their deploys), lets the admin change them, and links both. */
export async function linkAsAdmin(s: TestServer, peers: FakePeers, projectId: number, app: [string, FakeDeploy[]?], alias: [string, FakeDeploy[]?]): Promise<void> {
  peers.apps.add(app[0], app[1]);
  peers.pages.add(alias[0], alias[1]);
  // The admin token's access token has the subject `admin`.
  peers.apps.allow(app[0], 'admin');
  peers.pages.allow(alias[0], 'admin');
  expect((await s.api('PUT', `/api/v1/projects/${projectId}/links/apps/${app[0]}`, {})).statusCode).toBe(201);
  expect((await s.api('PUT', `/api/v1/projects/${projectId}/links/aliases/${alias[0]}`, {})).statusCode).toBe(201);
}
