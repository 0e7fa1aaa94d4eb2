/**
 * The OAuth side of a fake subscription provider (used by fake-plan-provider.ts): authorize (what the browser does,
 * simulated by `authorize(url)`), the token endpoint with PKCE checks and ROTATING refresh tokens (a refresh token
 * works once; presenting it again answers 400 invalid_grant, as the real providers do), the ChatGPT device flow and
 * a switch for outages. Codes live 10 minutes unless expired by hand; each is usable once.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface IssuedCode {
  code: string;
  state: string;
  /** What the browser would end on: redirect_uri?code=…&state=…. */
  callbackUrl: string;
}

interface CodeGrant {
  challenge: string;
  redirectUri: string;
  used: boolean;
  expiresAt: number;
}

export interface TokenAnswer {
  status: number;
  body: unknown;
}

const rand = (p: string) => `${p}${randomBytes(12).toString('hex')}`;
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

export class FakePlanOAuth {
  readonly clientId: string;
  /** Set to require this client secret on token requests. */
  clientSecret: string | null = null;
  /** Access-token lifetime handed out (seconds). */
  expiresIn = 3600;
  /** Answer the next N token requests with 503 (a provider outage). */
  outages = 0;
  /** Delay of every token answer (to make concurrent refreshes overlap). */
  delayMs = 0;
  /** Token requests received, by grant type. */
  readonly grants: string[] = [];
  /** Refresh tokens presented again after they were rotated (each one would kill a real account). */
  readonly reusedRefreshTokens: string[] = [];
  email = 'person@example.com';
  /** The redirect URI device-flow codes are exchanged with. */
  deviceRedirectUri = '';
  #codes = new Map<string, CodeGrant>();
  #refresh = new Map<string, 'valid' | 'used'>();
  #access = new Map<string, number>();
  #devices = new Map<string, { userCode: string; approved: boolean }>();

  constructor(clientId: string) {
    this.clientId = clientId;
  }

  /** Plays the browser: reads the authorize URL the gateway built and "approves" it. */
  authorize(url: string): IssuedCode {
    const u = new URL(url);
    const q = u.searchParams;
    if (q.get('client_id') !== this.clientId) throw new Error(`authorize: wrong client_id ${q.get('client_id')}`);
    if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) throw new Error('authorize: no S256 PKCE challenge');
    if (q.get('response_type') !== 'code') throw new Error('authorize: response_type must be code');
    const code = rand('code_');
    const state = q.get('state') ?? '';
    const redirectUri = q.get('redirect_uri') ?? '';
    this.#codes.set(code, { challenge: q.get('code_challenge') as string, redirectUri, used: false, expiresAt: Date.now() + 600_000 });
    return { code, state, callbackUrl: `${redirectUri}?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}` };
  }

  expireCode(code: string): void {
    const c = this.#codes.get(code);
    if (c) c.expiresAt = 0;
  }

  /** Makes every access token handed out so far invalid (the provider revoked them). */
  revokeAccessTokens(): void {
    this.#access.clear();
  }

  /** Kills every refresh token (the person signed out everywhere). */
  revokeRefreshTokens(): void {
    for (const k of this.#refresh.keys()) this.#refresh.set(k, 'used');
  }

  isValidAccess(token: string | undefined): boolean {
    if (!token) return false;
    const exp = this.#access.get(token);
    return exp !== undefined && exp > Date.now();
  }

  /** Hands out tokens directly (to seed an account without a sign-in). */
  mint(): { access_token: string; refresh_token: string; expires_in: number; token_type: string; id_token: string; account: object } {
    const access = rand('at_');
    const refresh = rand('rt_');
    this.#access.set(access, Date.now() + this.expiresIn * 1000);
    this.#refresh.set(refresh, 'valid');
    const idToken = `${b64({ alg: 'none' })}.${b64({ email: this.email, 'https://api.openai.com/auth': { chatgpt_account_id: 'acct-fake-1', chatgpt_plan_type: 'plus' } })}.sig`;
    return { access_token: access, refresh_token: refresh, expires_in: this.expiresIn, token_type: 'Bearer', id_token: idToken, account: { uuid: 'u-1', email_address: this.email } };
  }

  async token(fields: Record<string, unknown>): Promise<TokenAnswer> {
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    this.grants.push(String(fields.grant_type));
    if (this.outages > 0) {
      this.outages--;
      return { status: 503, body: { error: 'temporarily_unavailable' } };
    }
    if (fields.client_id !== this.clientId) return { status: 401, body: { error: 'invalid_client' } };
    if (this.clientSecret !== null && fields.client_secret !== this.clientSecret) return { status: 401, body: { error: 'invalid_client' } };
    if (fields.grant_type === 'authorization_code') {
      const grant = this.#codes.get(String(fields.code));
      if (!grant || grant.used || grant.expiresAt <= Date.now()) return { status: 400, body: { error: 'invalid_grant', error_description: 'code expired or already used' } };
      grant.used = true;
      const verifier = String(fields.code_verifier ?? '');
      if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return { status: 400, body: { error: 'invalid_grant', error_description: 'PKCE verification failed' } };
      if (fields.redirect_uri !== grant.redirectUri) return { status: 400, body: { error: 'invalid_grant', error_description: 'redirect_uri mismatch' } };
      return { status: 200, body: this.mint() };
    }
    if (fields.grant_type === 'refresh_token') {
      const rt = String(fields.refresh_token);
      const st = this.#refresh.get(rt);
      if (st !== 'valid') {
        if (st === 'used') this.reusedRefreshTokens.push(rt);
        return { status: 400, body: { error: 'invalid_grant', error_description: 'refresh token already used or revoked' } };
      }
      this.#refresh.set(rt, 'used');
      return { status: 200, body: this.mint() };
    }
    return { status: 400, body: { error: 'unsupported_grant_type' } };
  }

  deviceStart(fields: Record<string, unknown>): TokenAnswer {
    if (fields.client_id !== this.clientId) return { status: 401, body: { error: 'invalid_client' } };
    const id = rand('dev_');
    const userCode = `${randomBytes(2).toString('hex').toUpperCase()}-${randomBytes(2).toString('hex').toUpperCase()}`;
    this.#devices.set(id, { userCode, approved: false });
    return { status: 200, body: { device_auth_id: id, user_code: userCode, interval: '1' } };
  }

  /** The person enters the code on the verification page. */
  approveDevice(userCode: string): void {
    for (const d of this.#devices.values()) if (d.userCode === userCode) d.approved = true;
  }

  deviceToken(fields: Record<string, unknown>): TokenAnswer {
    const d = this.#devices.get(String(fields.device_auth_id));
    if (!d || d.userCode !== fields.user_code) return { status: 404, body: { error: 'unknown device' } };
    if (!d.approved) return { status: 403, body: { error: 'authorization_pending' } };
    this.#devices.delete(String(fields.device_auth_id));
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const code = rand('code_');
    this.#codes.set(code, { challenge, redirectUri: this.deviceRedirectUri, used: false, expiresAt: Date.now() + 600_000 });
    return { status: 200, body: { authorization_code: code, code_verifier: verifier, code_challenge: challenge } };
  }
}
