/** The team of a created resource: header X-Svc-Team or query `team`, by id or name. */
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../core/db/db.ts';
import { svcError } from '../core/errors.ts';

export function teamRef(req: FastifyRequest): string | undefined {
  const h = req.headers['x-svc-team'];
  if (typeof h === 'string' && h !== '') return h;
  const q = (req.query as Record<string, unknown> | undefined)?.team;
  return typeof q === 'string' && q !== '' ? q : undefined;
}

/** Resolves a team id or name to its id; unknown → team_not_found. */
export async function resolveTeamId(db: Queryable, ref: string): Promise<string> {
  const r = await db.query<{ id: string }>('SELECT id FROM teams WHERE id = $1 OR name = $1', [ref]);
  if (!r.rows[0]) throw svcError('team_not_found', `The team "${ref}" was not found or you are not a member of it.`);
  return r.rows[0].id;
}

/** The team named by the request, required. */
export async function requireTeamOfRequest(db: Queryable, req: FastifyRequest): Promise<string> {
  const ref = teamRef(req);
  if (!ref) throw svcError('team_required');
  return resolveTeamId(db, ref);
}

/** The team filter of a list, when the request narrows it. */
export async function optionalTeamOfRequest(db: Queryable, req: FastifyRequest): Promise<string | undefined> {
  const ref = teamRef(req);
  return ref ? resolveTeamId(db, ref) : undefined;
}
