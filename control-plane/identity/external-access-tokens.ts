/**
 * Access tokens of a separate identity issuer (SVC_ID_URL, or SVC_ID_JWKS_URL with SVC_ID_ISSUER), verified against
 * its JWKS (cached; an unknown kid fetches it again at most once a minute). The issuer is trusted to name users:
 *   user   ← `preferred_username`, else `username`, else `sub`: the user of that name here (created without a
 *            password when SVC_ID_AUTO_PROVISION is on; otherwise a name with no user is refused, 401)
 *   teams  ← this service's memberships of that user (roles stay managed here)
 *   scope  ← `scope` (space-separated; the widest of read, deploy, write it names; read when absent)
 * Such tokens are not revocable here: they hold until their `exp`.
 */
import type { AppContext } from '../../core/context.ts';
import { SCOPES, type Principal, type Scope } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { MAX_TOKEN_CHARS } from './access-tokens.ts';
import { JobTokenRefusal, OidcIssuers } from './trust/oidc-issuers.ts';
import type { UserRoles } from './user-roles.ts';

const USERNAME = /^[A-Za-z0-9._-]{1,64}$/;

function widestScope(claim: unknown): Scope {
  const named = typeof claim === 'string' ? claim.split(' ') : [];
  return [...SCOPES].reverse().find((s) => named.includes(s)) ?? 'read';
}

export class ExternalAccessTokens {
  readonly issuer: string;
  #ctx: AppContext;
  #roles: UserRoles;
  #issuers: OidcIssuers;
  #audience: string | undefined;
  #autoProvision: boolean;

  constructor(ctx: AppContext, roles: UserRoles, cfg: NonNullable<AppContext['config']['externalIssuer']>) {
    this.#ctx = ctx;
    this.#roles = roles;
    this.issuer = cfg.issuer;
    this.#audience = cfg.audience;
    this.#autoProvision = cfg.autoProvision;
    // Configured by the operator, not chosen by a user: http and private addresses are fine.
    this.#issuers = new OidcIssuers(ctx, { allowPrivate: true });
    if (cfg.jwksUrl) this.#issuers.pin(cfg.issuer, cfg.jwksUrl);
  }

  readonly verify = async (token: string): Promise<Principal> => {
    if (token.length > MAX_TOKEN_CHARS) throw svcError('invalid_token', 'The access token is longer than any token this service accepts.');
    let claims: Record<string, unknown>;
    try {
      claims = await this.#issuers.verify(token, this.issuer, [this.#audience ?? this.#ctx.config.publicUrl], ['sub', 'exp']);
    } catch (err) {
      if (err instanceof JobTokenRefusal) throw svcError(err.expired ? 'token_expired' : 'invalid_token', err.message);
      throw err;
    }
    const name = [claims.preferred_username, claims.username, claims.sub].find((v) => typeof v === 'string' && v !== '') as string;
    const userId = await this.#userNamed(name);
    const now = await this.#roles.of(userId);
    if (!now) throw svcError('invalid_token', `No user here is named ${name}.`);
    return { userId, isSuperuser: now.isSuperuser, scope: widestScope(claims.scope), via: 'access_token', tokenId: typeof claims.jti === 'string' ? claims.jti : null, teams: now.teams };
  };

  async #userNamed(name: string): Promise<string> {
    const found = await this.#ctx.db.query<{ id: string }>('SELECT id FROM users WHERE username = $1', [name]);
    if (found.rows[0]) return found.rows[0].id;
    if (!this.#autoProvision) throw svcError('invalid_token', `No user here is named ${name.slice(0, 64)}: an administrator creates it, or turns on SVC_ID_AUTO_PROVISION.`);
    if (!USERNAME.test(name)) throw svcError('invalid_token', 'The token names a user that cannot be created here (1-64 of A-Z a-z 0-9 . _ -).');
    // Two nodes provisioning at once create one user.
    await this.#ctx.db.query('INSERT INTO users (id, username, created_at) VALUES ($1, $2, $3) ON CONFLICT (username) DO NOTHING', [newId(), name, new Date(this.#ctx.clock.now())]);
    this.#ctx.log.info({ username: name, issuer: this.issuer }, 'user provisioned from the identity issuer');
    return (await this.#ctx.db.query<{ id: string }>('SELECT id FROM users WHERE username = $1', [name])).rows[0].id;
  }
}
