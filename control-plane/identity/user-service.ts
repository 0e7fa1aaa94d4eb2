/** Users: created by superusers (or at first start), passwords stored with scrypt. */
import type { Queryable } from '../../core/db/db.ts';
import { svcError } from '../../core/errors.ts';
import { hashPassword } from '../../core/auth/password.ts';
import { newId } from '../../core/ids.ts';
import { rfc3339 } from '../../core/clock.ts';

export interface UserRow {
  id: string;
  username: string;
  email: string | null;
  password_hash: string | null;
  is_superuser: boolean;
  created_at: Date;
}

export function userView(u: UserRow): Record<string, unknown> {
  return { id: u.id, username: u.username, email: u.email, is_superuser: u.is_superuser, created_at: rfc3339(u.created_at) };
}

export async function findUserId(db: Queryable, ref: string): Promise<string> {
  const r = await db.query<{ id: string }>('SELECT id FROM users WHERE id = $1 OR username = $1', [ref]);
  if (!r.rows[0]) throw svcError('not_found', `The user "${ref}" was not found.`);
  return r.rows[0].id;
}

export async function createUser(db: Queryable, input: { username: string; email?: string | null; password?: string | null; isSuperuser?: boolean }): Promise<UserRow> {
  const exists = await db.query('SELECT 1 FROM users WHERE username = $1 OR ($2::text IS NOT NULL AND email = $2)', [input.username, input.email ?? null]);
  if (exists.rows.length) throw svcError('conflict', `A user named "${input.username}" or with this e-mail already exists.`);
  const hash = input.password ? await hashPassword(input.password) : null;
  const r = await db.query<UserRow>(
    'INSERT INTO users (id, username, email, password_hash, is_superuser) VALUES ($1, $2, $3, $4, $5) RETURNING *',
    [newId(), input.username, input.email ?? null, hash, input.isSuperuser ?? false],
  );
  return r.rows[0];
}
