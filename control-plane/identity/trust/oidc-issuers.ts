/**
 * The OIDC issuers of trust rules (GitHub Actions, GitLab CI, any OIDC provider): each issuer's discovery document
 * (`{issuer}/.well-known/openid-configuration`) and its JWKS, fetched through the outbound guard (private targets
 * refused unless SVC_ALLOW_PRIVATE_ISSUERS) and cached per issuer. Keys are looked up only in the JWKS of the
 * issuer the rule names, so a token from another issuer that reuses a `kid` finds no key. An unknown `kid` fetches
 * the JWKS again at most once a minute per issuer (the issuer rotated its keys). While an issuer does not answer, the
 * cached document and keys go on serving (stale-if-error), so a short outage there does not stop every job here.
 */
import { request, type Agent } from 'undici';
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { AppContext } from '../../../core/context.ts';
import { svcError } from '../../../core/errors.ts';
import { guardedAgent, isPrivateTargetError } from '../../../core/net/guarded-agent.ts';

/** Asymmetric algorithms only: `none` and shared-secret algorithms can never verify a job token. */
export const JOB_TOKEN_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA'];
const JWKS_TTL_MS = 10 * 60_000;
const DISCOVERY_TTL_MS = 60 * 60_000;
const UNKNOWN_KID_REFETCH_MS = 60_000;
const MAX_DOCUMENT_BYTES = 256 * 1024;
const TIMEOUT_MS = 10_000;
export const PRIVATE_ISSUERS_OPT_IN = 'SVC_ALLOW_PRIVATE_ISSUERS';

interface Entry {
  jwksUri: string;
  discoveredAt: number;
  jwks?: JSONWebKeySet;
  jwksAt: number;
  refetchedAt: number;
}

/** Why a token was refused, in a sentence (the exchange answers it as `invalid_grant`); `expired` tells expiry apart. */
export class JobTokenRefusal extends Error {
  readonly expired: boolean;
  constructor(message: string, expired = false) {
    super(message);
    this.expired = expired;
  }
}

export class OidcIssuers {
  #ctx: AppContext;
  #agent: Agent;
  #entries = new Map<string, Entry>();

  #allowPrivate: boolean;

  /** allowPrivate: http and private addresses allowed (an issuer the operator configured, not one a user chose). */
  constructor(ctx: AppContext, opts: { allowPrivate?: boolean } = {}) {
    this.#ctx = ctx;
    this.#allowPrivate = opts.allowPrivate ?? ctx.config.allowPrivateIssuers;
    this.#agent = guardedAgent({ allowPrivate: this.#allowPrivate, optIn: PRIVATE_ISSUERS_OPT_IN, connectTimeoutMs: TIMEOUT_MS, agent: { headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS } });
  }

  /** Uses this JWKS for the issuer instead of the one its discovery document names (no discovery is fetched). */
  pin(issuer: string, jwksUri: string): void {
    this.#entries.set(issuer, { jwksUri, discoveredAt: Infinity, jwksAt: 0, refetchedAt: -Infinity });
  }

  /** Checks that `issuer` is an OIDC issuer whose keys can be read (at rule creation): 400 invalid_issuer otherwise. */
  async check(issuer: string): Promise<void> {
    try {
      const e = await this.#entry(issuer, true);
      await this.#jwks(issuer, e, true);
    } catch (err) {
      throw svcError('invalid_issuer', `The issuer ${issuer} cannot be used: ${(err as Error).message}`, { field: 'issuer' });
    }
  }

  /** Verifies a token's signature (with the issuer's keys), issuer, audience (any of `audiences`), times and claims. */
  async verify(token: string, issuer: string, audiences: string[], requiredClaims = ['sub', 'exp', 'iat', 'jti']): Promise<JWTPayload> {
    const e = await this.#entry(issuer, false).catch((err: Error) => {
      throw new JobTokenRefusal(`The keys of the issuer ${issuer} could not be read: ${err.message}`);
    });
    const attempt = async (force: boolean) => {
      const jwks = await this.#jwks(issuer, e, force).catch((err: Error) => {
        throw new JobTokenRefusal(`The keys of the issuer ${issuer} could not be read: ${err.message}`);
      });
      return jwtVerify(token, createLocalJWKSet(jwks), { issuer, audience: audiences, algorithms: JOB_TOKEN_ALGS, currentDate: new Date(this.#ctx.clock.now()), requiredClaims });
    };
    try {
      try {
        return (await attempt(false)).payload;
      } catch (err) {
        const now = this.#ctx.clock.now();
        if (!(err instanceof joseErrors.JWKSNoMatchingKey) || now - e.refetchedAt < UNKNOWN_KID_REFETCH_MS) throw err;
        e.refetchedAt = now;
        return (await attempt(true)).payload;
      }
    } catch (err) {
      throw refusal(err);
    }
  }

  async #entry(issuer: string, fresh: boolean): Promise<Entry> {
    const now = this.#ctx.clock.now();
    const known = this.#entries.get(issuer);
    if (known && !fresh && (known.discoveredAt === Infinity || now - known.discoveredAt < DISCOVERY_TTL_MS)) return known;
    let doc: Record<string, unknown>;
    try {
      doc = await this.#getJson(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
    } catch (err) {
      // Stale-if-error: an issuer briefly down must not stop every CI job; what it said an hour ago still holds.
      if (!known || fresh) throw err;
      this.#ctx.log.warn({ issuer, err: (err as Error).message }, 'issuer discovery failed; using the cached document');
      return known;
    }
    if (doc.issuer !== issuer) throw new Error(`its discovery document names the issuer ${JSON.stringify(doc.issuer)}, not ${issuer}.`);
    if (typeof doc.jwks_uri !== 'string') throw new Error('its discovery document has no jwks_uri.');
    const entry: Entry = { jwksUri: doc.jwks_uri, discoveredAt: now, jwks: known?.jwksUri === doc.jwks_uri ? known.jwks : undefined, jwksAt: known?.jwksAt ?? 0, refetchedAt: known?.refetchedAt ?? -Infinity };
    this.#entries.set(issuer, entry);
    return entry;
  }

  async #jwks(issuer: string, e: Entry, force: boolean): Promise<JSONWebKeySet> {
    const now = this.#ctx.clock.now();
    if (e.jwks && !force && now - e.jwksAt < JWKS_TTL_MS) return e.jwks;
    let doc: Record<string, unknown>;
    try {
      doc = await this.#getJson(e.jwksUri);
    } catch (err) {
      // Stale-if-error, for expired keys only: a forced fetch (an unknown kid) has nothing cached to fall back on.
      if (!e.jwks || force) throw err;
      this.#ctx.log.warn({ issuer, err: (err as Error).message }, 'issuer keys could not be fetched; using the cached keys');
      return e.jwks;
    }
    if (!Array.isArray(doc.keys)) throw new Error(`the JWKS at ${e.jwksUri} has no keys.`);
    e.jwks = { keys: doc.keys as JSONWebKeySet['keys'] };
    e.jwksAt = now;
    this.#ctx.log.debug({ issuer, keys: doc.keys.length }, 'issuer keys fetched');
    return e.jwks;
  }

  async #getJson(url: string): Promise<Record<string, unknown>> {
    const u = new URL(url);
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && this.#allowPrivate)) throw new Error(`${url} is not an https URL.`);
    let res;
    try {
      res = await request(u, { dispatcher: this.#agent, headers: { accept: 'application/json' } });
    } catch (err) {
      if (isPrivateTargetError(err)) throw new Error(`${u.host} is a private address, which this instance does not allow (${PRIVATE_ISSUERS_OPT_IN}).`);
      throw new Error(`${url} could not be reached (${(err as Error).message}).`);
    }
    let text = '';
    for await (const chunk of res.body) {
      text += Buffer.from(chunk as Uint8Array).toString('utf8');
      if (text.length > MAX_DOCUMENT_BYTES) {
        res.body.destroy();
        throw new Error(`${url} answered more than ${MAX_DOCUMENT_BYTES} bytes.`);
      }
    }
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}.`);
    try {
      const doc = JSON.parse(text) as unknown;
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('not an object');
      return doc as Record<string, unknown>;
    } catch {
      throw new Error(`${url} did not answer a JSON object.`);
    }
  }
}

function refusal(err: unknown): JobTokenRefusal {
  if (err instanceof JobTokenRefusal) return err;
  if (err instanceof joseErrors.JWTExpired) return new JobTokenRefusal('The token has expired.', true);
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return new JobTokenRefusal("The token's audience (aud) is not one this service accepts from its issuer.");
    return new JobTokenRefusal(`The token's ${err.claim} claim is not valid (${err.reason}).`);
  }
  if (err instanceof joseErrors.JWKSNoMatchingKey) return new JobTokenRefusal("No key of the issuer matches the token's kid.");
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return new JobTokenRefusal("The token's algorithm is not allowed (asymmetric signatures only).");
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return new JobTokenRefusal("The token's signature does not verify with the issuer's keys.");
  return new JobTokenRefusal('The token is not a valid signed JWT.');
}
