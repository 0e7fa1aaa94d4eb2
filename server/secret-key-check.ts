/**
 * Every node of one database must share SVC_SECRET_KEY: provider keys and OAuth tokens sealed by one node are
 * opened by the others. The first node to start records a check value of its key (an HMAC of a fixed text under
 * the key, which reveals nothing of it); a node whose key gives another value refuses to start and says why,
 * instead of serving and then failing on every call that needs a stored secret.
 */
import { createHmac } from 'node:crypto';
import { ConfigError } from '../core/config.ts';
import type { AppContext } from '../core/context.ts';

export async function checkSecretKey(ctx: Pick<AppContext, 'db' | 'secretKey'>): Promise<void> {
  const mine = createHmac('sha256', ctx.secretKey).update('svc secret key check').digest('hex');
  await ctx.db.query('INSERT INTO secret_key_check (id, key_check) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [mine]);
  const { rows } = await ctx.db.query<{ key_check: string }>('SELECT key_check FROM secret_key_check WHERE id = 1');
  if (rows[0]?.key_check !== mine) {
    throw new ConfigError(
      'SVC_SECRET_KEY',
      'differs from the key the other nodes of this database use: the provider secrets they stored could not be opened here. Give every node the same SVC_SECRET_KEY',
    );
  }
}
