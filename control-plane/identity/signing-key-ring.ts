/**
 * The keys that sign access tokens: Ed25519 (JWS alg EdDSA), stored in `signing_keys` with the private half sealed
 * with SVC_SECRET_KEY. Rotation with an overlap, on every node alike and without a lock:
 *   - a new key is inserted PUBLISH_AHEAD_MS before it starts signing, so every node (which reloads the keys at
 *     least once a minute) knows it before the first token signed with it arrives;
 *   - a key signs until the next one is active, and stays published until the last token it signed has expired;
 *   - keys are numbered by generation (unique), so two nodes rotating at once insert one key between them.
 */
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { AppContext } from '../../core/context.ts';
import { randomHex } from '../../core/ids.ts';
import { open, seal } from '../../core/secret-box.ts';

export const SIGNING_ALG = 'EdDSA';
/** A signing key's working life before the next one takes over. */
export const ROTATE_AFTER_MS = 30 * 86_400_000;
/** A new key is published this long before it signs (longer than RELOAD_MS, so every node has it). */
export const PUBLISH_AHEAD_MS = 2 * 60_000;
/** How long a replaced key stays published: the longest access token lifetime, plus leeway for clock skew. */
export const KEEP_PUBLISHED_MS = 20 * 60_000;
const RELOAD_MS = 60_000;
const RETRY_MS = 5_000;
/** An unknown kid reloads the keys at most this often (a stranger's kid must not cost a query per request). */
const UNKNOWN_KID_RELOAD_MS = 5_000;

interface KeyRow {
  kid: string;
  generation: number;
  public_jwk: JWK;
  private_sealed: string;
  active_from: Date;
}

interface Key {
  kid: string;
  generation: number;
  publicJwk: JWK;
  sealed: string;
  activeFrom: number;
  /** When the next key took over (null while this one is the newest active key). */
  replacedAt: number | null;
  publicKey?: CryptoKey;
  privateKey?: CryptoKey;
}

export class SigningKeyRing {
  #ctx: AppContext;
  #keys: Key[] = [];
  #loadedAt = -Infinity;
  #unknownKidAt = -Infinity;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  /** The key to sign with now; creates the first key, and the next one when this one is due for rotation. */
  async signingKey(): Promise<{ kid: string; key: CryptoKey }> {
    await this.#fresh();
    const now = this.#ctx.clock.now();
    let current = this.#current(now);
    if (!current) {
      await this.#insert(this.#nextGeneration(), now);
      await this.#reload();
      current = this.#current(now);
      if (!current) throw new Error('No signing key could be created');
    }
    const newest = this.#keys[this.#keys.length - 1];
    if (newest === current && current.activeFrom + ROTATE_AFTER_MS <= now) {
      await this.#insert(this.#nextGeneration(), now + PUBLISH_AHEAD_MS);
      await this.#reload();
    }
    current.privateKey ??= (await importJWK(JSON.parse(open(this.#ctx.secretKey, current.sealed)) as JWK, SIGNING_ALG)) as CryptoKey;
    return { kid: current.kid, key: current.privateKey };
  }

  /** The public key of `kid`, or undefined when no published key has it. */
  async verificationKey(kid: string): Promise<CryptoKey | undefined> {
    await this.#fresh();
    let k = this.#published().find((x) => x.kid === kid);
    const now = this.#ctx.clock.now();
    if (!k && now - this.#unknownKidAt >= UNKNOWN_KID_RELOAD_MS) {
      this.#unknownKidAt = now;
      await this.#reload();
      k = this.#published().find((x) => x.kid === kid);
    }
    if (!k) return undefined;
    k.publicKey ??= (await importJWK(k.publicJwk, SIGNING_ALG)) as CryptoKey;
    return k.publicKey;
  }

  /** The JWKS document: every key that signs, will sign soon, or signed a token that may still be valid. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.#fresh();
    if (this.#keys.length === 0) await this.signingKey();
    return { keys: this.#published().map((k) => ({ ...k.publicJwk, kid: k.kid, alg: SIGNING_ALG, use: 'sig' })) };
  }

  #published(): Key[] {
    const now = this.#ctx.clock.now();
    return this.#keys.filter((k) => k.replacedAt === null || k.replacedAt + KEEP_PUBLISHED_MS > now);
  }

  #current(now: number): Key | undefined {
    return this.#keys.findLast((k) => k.activeFrom <= now);
  }

  #nextGeneration(): number {
    return (this.#keys[this.#keys.length - 1]?.generation ?? 0) + 1;
  }

  async #fresh(): Promise<void> {
    const now = this.#ctx.clock.now();
    if (now - this.#loadedAt < RELOAD_MS) return;
    try {
      await this.#reload();
    } catch (err) {
      // While the database restarts, the keys already known keep verifying and signing (as cached API tokens do).
      if (this.#keys.length === 0) throw err;
      this.#loadedAt = now - RELOAD_MS + RETRY_MS;
      this.#ctx.log.warn({ err }, 'signing keys could not be reloaded; using the keys known');
    }
  }

  async #reload(): Promise<void> {
    const r = await this.#ctx.db.query<KeyRow>('SELECT kid, generation, public_jwk, private_sealed, active_from FROM signing_keys ORDER BY generation');
    const known = new Map(this.#keys.map((k) => [k.kid, k]));
    const keys: Key[] = r.rows.map((row) => {
      const k = known.get(row.kid);
      return { kid: row.kid, generation: row.generation, publicJwk: row.public_jwk, sealed: row.private_sealed, activeFrom: new Date(row.active_from).getTime(), replacedAt: null, publicKey: k?.publicKey, privateKey: k?.privateKey };
    });
    const now = this.#ctx.clock.now();
    for (let i = 0; i < keys.length - 1; i++) if (keys[i + 1].activeFrom <= now) keys[i].replacedAt = keys[i + 1].activeFrom;
    this.#keys = keys;
    this.#loadedAt = now;
    // Keys whose last token has expired are of no use to anyone: drop them (any node may; it is idempotent).
    const gone = keys.filter((k) => k.replacedAt !== null && k.replacedAt + KEEP_PUBLISHED_MS <= now).map((k) => k.kid);
    if (gone.length > 0) await this.#ctx.db.query('DELETE FROM signing_keys WHERE kid = ANY($1)', [gone]);
  }

  async #insert(generation: number, activeFrom: number): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { crv: 'Ed25519', extractable: true });
    const kid = randomHex(8);
    const publicJwk = await exportJWK(publicKey);
    const sealed = seal(this.#ctx.secretKey, JSON.stringify(await exportJWK(privateKey)));
    await this.#ctx.db.query(
      `INSERT INTO signing_keys (kid, generation, alg, public_jwk, private_sealed, active_from, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (generation) DO NOTHING`,
      [kid, generation, SIGNING_ALG, JSON.stringify(publicJwk), sealed, new Date(activeFrom), new Date(this.#ctx.clock.now())],
    );
  }
}
