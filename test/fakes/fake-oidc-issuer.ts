/**
 * A local OIDC issuer as CI systems run one: discovery at /.well-known/openid-configuration, keys at /jwks, RS256
 * job tokens with GitHub Actions- or GitLab CI-shaped claims, times from the test's clock. `rotate()` replaces the
 * signing key (the JWKS then lists the new key only), as the real issuers do from time to time.
 */
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { Clock } from '../../core/clock.ts';
import { randomHex } from '../../core/ids.ts';

export interface FakeIssuer {
  /** The issuer URL (http://127.0.0.1:port). */
  url: string;
  kid: string;
  jwksFetches: number;
  /** While true, discovery and JWKS answer 503 (an outage of the issuer). */
  down: boolean;
  sign(claims: Record<string, unknown>, opts?: { kid?: string; iss?: string; ttlS?: number; key?: CryptoKey }): Promise<string>;
  rotate(opts?: { kid?: string }): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeIssuer(clock: Clock, opts: { kid?: string } = {}): Promise<FakeIssuer> {
  let key: { kid: string; privateKey: CryptoKey; jwk: JWK };
  const newKey = async (kid = randomHex(6)) => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    return { kid, privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' } };
  };
  key = await newKey(opts.kid);
  let url = '';
  const server: Server = createServer((req, res) => {
    if (fake.down) {
      res.writeHead(503).end();
    } else if (req.url === '/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks`, id_token_signing_alg_values_supported: ['RS256'], response_types_supported: ['id_token'], subject_types_supported: ['public'] }));
    } else if (req.url === '/jwks') {
      fake.jwksFetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [key.jwk] }));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const fake: FakeIssuer = {
    url,
    get kid() {
      return key.kid;
    },
    jwksFetches: 0,
    down: false,
    async sign(claims, o = {}) {
      const now = Math.floor(clock.now() / 1000);
      return new SignJWT({ jti: randomHex(8), ...claims })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: o.kid ?? key.kid })
        .setIssuer(o.iss ?? url)
        .setIssuedAt(now)
        .setNotBefore(now)
        .setExpirationTime(now + (o.ttlS ?? 300))
        .sign(o.key ?? key.privateKey);
    },
    async rotate(o = {}) {
      key = await newKey(o.kid);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  return fake;
}

/** Claims of a GitHub Actions job token (docs.github.com: about security hardening with OpenID Connect). */
export function githubClaims(aud: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    aud, sub: 'repo:acme/shop:environment:production', repository: 'acme/shop', repository_id: '74001', repository_owner: 'acme',
    repository_owner_id: '9100', ref: 'refs/heads/main', ref_type: 'branch', environment: 'production', workflow: 'deploy',
    job_workflow_ref: 'acme/shop/.github/workflows/deploy.yml@refs/heads/main', event_name: 'push', actor: 'octocat', run_id: '123',
    ...over,
  };
}

/** Claims of a GitLab CI job token (docs.gitlab.com: ID tokens). */
export function gitlabClaims(aud: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    aud, sub: 'project_path:acme/shop:ref_type:branch:ref:main', namespace_id: '72', namespace_path: 'acme', project_id: '2048',
    project_path: 'acme/shop', ref: 'main', ref_type: 'branch', ref_protected: 'true', environment: 'production', pipeline_source: 'push',
    user_login: 'dev', ...over,
  };
}
