/**
 * First start: when the instance has no user, create the admin user (superuser), a team `default` it owns, and a
 * write-scoped API token; the caller prints the password and token once. Under the migrate lock, so two nodes
 * starting at once create one admin.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../core/context.ts';
import { LOCKS } from '../../core/db/db.ts';
import { newId } from '../../core/ids.ts';
import { createToken } from './token-service.ts';
import { createUser } from './user-service.ts';

export interface BootstrapResult {
  username: string;
  password: string;
  token: string;
}

export async function bootstrapAdmin(ctx: AppContext): Promise<BootstrapResult | null> {
  return ctx.db.withLock(LOCKS.migrate, async () => {
    const any = await ctx.db.query('SELECT 1 FROM users LIMIT 1');
    if (any.rows.length) return null;
    const password = randomBytes(12).toString('base64url');
    return ctx.db.tx(async (q) => {
      const user = await createUser(q, { username: 'admin', password, isSuperuser: true });
      const teamId = newId();
      await q.query("INSERT INTO teams (id, name) VALUES ($1, 'default') ON CONFLICT (name) DO NOTHING", [teamId]);
      const team = await q.query<{ id: string }>("SELECT id FROM teams WHERE name = 'default'");
      await q.query("INSERT INTO memberships (team_id, user_id, role) VALUES ($1, $2, 'owner')", [team.rows[0].id, user.id]);
      const { secret } = await createToken(ctx, q, user.id, 'initial admin token', 'write', null);
      return { username: 'admin', password, token: secret };
    });
  });
}
