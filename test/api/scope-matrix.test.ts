/**
 * The access matrix through the API: token scope (read, deploy, write) × the caller's standing in team `matrix`
 * (viewer, member, admin, owner, not a member, instance superuser) × action, each cell with its exact status and
 * code. The table is written out by hand, not derived from core/auth/principal.ts, so that it checks the code.
 *
 * Cells: ok = the action's success status; scope = 403 insufficient_scope; role = 403 forbidden;
 * hidden = 404 not_found (kind team_not_found: a non-member learns nothing about the team); su = 403 superuser_required.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { bearer, createTeam, createUser, expectError, setRole, tokenFor } from './identity-fixtures.ts';

type Cell = 'ok' | 'scope' | 'role' | 'hidden' | 'su';
type Who = 'viewer' | 'member' | 'admin' | 'owner' | 'outsider' | 'superuser';
type Scope = 'read' | 'deploy' | 'write';
type Row = Record<Who, [read: Cell, deploy: Cell, write: Cell]>;

const WHO: Who[] = ['viewer', 'member', 'admin', 'owner', 'outsider', 'superuser'];
const SCOPES: Scope[] = ['read', 'deploy', 'write'];
const REFUSAL: Record<Exclude<Cell, 'ok'>, [number, string]> = {
  scope: [403, 'insufficient_scope'],
  role: [403, 'forbidden'],
  hidden: [404, 'not_found'],
  su: [403, 'superuser_required'],
};

interface Action {
  ok: number;
  /** Puts the team back in the state the action expects (with the admin token). */
  reset?: () => Promise<void>;
  run: (auth: Record<string, string>, n: number) => ReturnType<TestServer['api']>;
  expect: Row;
}

let s: TestServer;
const T = 'matrix';
const tokens = new Map<string, string>();

const pawnIs = (role: string | null) => async () => {
  if (role) await setRole(s, T, 'pawn', role);
  else await s.api('DELETE', `/api/v1/teams/${T}/members/pawn`);
};

//                                   read      deploy    write
const ACTIONS: Record<string, Action> = {
  'read the team': {
    ok: 200,
    run: (a) => s.api('GET', `/api/v1/teams/${T}`, undefined, a),
    expect: {
      viewer: ['ok', 'ok', 'ok'],
      member: ['ok', 'ok', 'ok'],
      admin: ['ok', 'ok', 'ok'],
      owner: ['ok', 'ok', 'ok'],
      outsider: ['hidden', 'hidden', 'hidden'],
      superuser: ['ok', 'ok', 'ok'],
    },
  },
  "list the team's members": {
    ok: 200,
    run: (a) => s.api('GET', `/api/v1/teams/${T}/members`, undefined, a),
    expect: {
      viewer: ['ok', 'ok', 'ok'],
      member: ['ok', 'ok', 'ok'],
      admin: ['ok', 'ok', 'ok'],
      owner: ['ok', 'ok', 'ok'],
      outsider: ['hidden', 'hidden', 'hidden'],
      superuser: ['ok', 'ok', 'ok'],
    },
  },
  "read the team's limits": {
    ok: 200,
    run: (a) => s.api('GET', `/api/v1/teams/${T}/limits`, undefined, a),
    expect: {
      viewer: ['ok', 'ok', 'ok'],
      member: ['ok', 'ok', 'ok'],
      admin: ['ok', 'ok', 'ok'],
      owner: ['ok', 'ok', 'ok'],
      outsider: ['hidden', 'hidden', 'hidden'],
      superuser: ['ok', 'ok', 'ok'],
    },
  },
  'set the team limits': {
    ok: 200,
    run: (a, n) => s.api('PUT', `/api/v1/teams/${T}/limits`, { 'ai.keys': n, 'errors.events': null }, a),
    expect: {
      viewer: ['su', 'su', 'su'],
      member: ['su', 'su', 'su'],
      admin: ['su', 'su', 'su'],
      owner: ['su', 'su', 'su'],
      outsider: ['su', 'su', 'su'],
      superuser: ['scope', 'scope', 'ok'],
    },
  },
  'add a member': {
    ok: 200,
    reset: pawnIs(null),
    run: (a) => s.api('PUT', `/api/v1/teams/${T}/members/pawn`, { role: 'member' }, a),
    expect: {
      viewer: ['scope', 'scope', 'role'],
      member: ['scope', 'scope', 'role'],
      admin: ['scope', 'scope', 'ok'],
      owner: ['scope', 'scope', 'ok'],
      outsider: ['hidden', 'hidden', 'hidden'],
      superuser: ['scope', 'scope', 'ok'],
    },
  },
  "change a member's role": {
    ok: 200,
    reset: pawnIs('viewer'),
    run: (a) => s.api('PUT', `/api/v1/teams/${T}/members/pawn`, { role: 'admin' }, a),
    expect: {
      viewer: ['scope', 'scope', 'role'],
      member: ['scope', 'scope', 'role'],
      admin: ['scope', 'scope', 'ok'],
      owner: ['scope', 'scope', 'ok'],
      outsider: ['hidden', 'hidden', 'hidden'],
      superuser: ['scope', 'scope', 'ok'],
    },
  },
  'make someone an owner': {
    ok: 200,
    reset: pawnIs('member'),
    run: (a) => s.api('PUT', `/api/v1/teams/${T}/members/pawn`, { role: 'owner' }, a),
    expect: {
      viewer: ['scope', 'scope', 'role'],
      member: ['scope', 'scope', 'role'],
      admin: ['scope', 'scope', 'role'],
      owner: ['scope', 'scope', 'ok'],
      outsider: ['hidden', 'hidden', 'hidden'],
      superuser: ['scope', 'scope', 'ok'],
    },
  },
  'demote an owner': {
    ok: 200,
    reset: pawnIs('owner'),
    run: (a) => s.api('PUT', `/api/v1/teams/${T}/members/pawn`, { role: 'member' }, a),
    expect: {
      viewer: ['scope', 'scope', 'role'],
      member: ['scope', 'scope', 'role'],
      admin: ['scope', 'scope', 'role'],
      owner: ['scope', 'scope', 'ok'],
      outsider: ['hidden', 'hidden', 'hidden'],
      superuser: ['scope', 'scope', 'ok'],
    },
  },
  'remove a member': {
    ok: 200,
    reset: pawnIs('member'),
    run: (a) => s.api('DELETE', `/api/v1/teams/${T}/members/pawn`, undefined, a),
    expect: {
      viewer: ['scope', 'scope', 'role'],
      member: ['scope', 'scope', 'role'],
      admin: ['scope', 'scope', 'ok'],
      owner: ['scope', 'scope', 'ok'],
      outsider: ['hidden', 'hidden', 'hidden'],
      superuser: ['scope', 'scope', 'ok'],
    },
  },
  'remove an owner': {
    ok: 200,
    reset: pawnIs('owner'),
    run: (a) => s.api('DELETE', `/api/v1/teams/${T}/members/pawn`, undefined, a),
    expect: {
      viewer: ['scope', 'scope', 'role'],
      member: ['scope', 'scope', 'role'],
      admin: ['scope', 'scope', 'role'],
      owner: ['scope', 'scope', 'ok'],
      outsider: ['hidden', 'hidden', 'hidden'],
      superuser: ['scope', 'scope', 'ok'],
    },
  },
  'create an API token': {
    ok: 201,
    run: (a) => s.api('POST', '/api/v1/tokens', { name: 'matrix', scope: 'read', ttl: '1h' }, a),
    expect: {
      viewer: ['scope', 'scope', 'ok'],
      member: ['scope', 'scope', 'ok'],
      admin: ['scope', 'scope', 'ok'],
      owner: ['scope', 'scope', 'ok'],
      outsider: ['scope', 'scope', 'ok'],
      superuser: ['scope', 'scope', 'ok'],
    },
  },
  'list own API tokens': {
    ok: 200,
    run: (a) => s.api('GET', '/api/v1/tokens', undefined, a),
    expect: {
      viewer: ['ok', 'ok', 'ok'],
      member: ['ok', 'ok', 'ok'],
      admin: ['ok', 'ok', 'ok'],
      owner: ['ok', 'ok', 'ok'],
      outsider: ['ok', 'ok', 'ok'],
      superuser: ['ok', 'ok', 'ok'],
    },
  },
  'create a team': {
    ok: 201,
    run: (a, n) => s.api('POST', '/api/v1/teams', { name: `made-${n}` }, a),
    expect: {
      viewer: ['scope', 'scope', 'ok'],
      member: ['scope', 'scope', 'ok'],
      admin: ['scope', 'scope', 'ok'],
      owner: ['scope', 'scope', 'ok'],
      outsider: ['scope', 'scope', 'ok'],
      superuser: ['scope', 'scope', 'ok'],
    },
  },
  'list users': {
    ok: 200,
    run: (a) => s.api('GET', '/api/v1/users', undefined, a),
    expect: {
      viewer: ['su', 'su', 'su'],
      member: ['su', 'su', 'su'],
      admin: ['su', 'su', 'su'],
      owner: ['su', 'su', 'su'],
      outsider: ['su', 'su', 'su'],
      superuser: ['ok', 'ok', 'ok'],
    },
  },
  'create a user': {
    ok: 201,
    run: (a, n) => s.api('POST', '/api/v1/users', { username: `new-${n}`, password: 'long enough password' }, a),
    expect: {
      viewer: ['su', 'su', 'su'],
      member: ['su', 'su', 'su'],
      admin: ['su', 'su', 'su'],
      owner: ['su', 'su', 'su'],
      outsider: ['su', 'su', 'su'],
      superuser: ['scope', 'scope', 'ok'],
    },
  },
};

beforeAll(async () => {
  s = await startTestServer();
  await createTeam(s, T);
  for (const who of WHO) await createUser(s, who, { superuser: who === 'superuser' });
  await createUser(s, 'pawn');
  for (const role of ['viewer', 'member', 'admin', 'owner']) await setRole(s, T, role, role);
  for (const who of WHO) for (const scope of SCOPES) tokens.set(`${who}/${scope}`, (await tokenFor(s, who, scope)).secret);
});
afterAll(async () => s?.close());

let n = 0;
describe('scope × team role × action', () => {
  for (const [name, action] of Object.entries(ACTIONS)) {
    it(name, async () => {
      const actual = {} as Row;
      for (const who of WHO) {
        const row: Cell[] = [];
        for (const scope of SCOPES) {
          await action.reset?.();
          const res = await action.run(bearer(tokens.get(`${who}/${scope}`) as string), ++n);
          const code = res.statusCode === action.ok ? undefined : (res.json() as { error?: { code?: string } }).error?.code;
          const cell = res.statusCode === action.ok ? 'ok' : (Object.keys(REFUSAL) as Exclude<Cell, 'ok'>[]).find((c) => REFUSAL[c][0] === res.statusCode && REFUSAL[c][1] === code);
          row.push(cell ?? (`${res.statusCode} ${code ?? res.body}` as Cell));
        }
        actual[who] = row as Row[Who];
      }
      expect(actual).toEqual(action.expect);
    });
  }
});

describe('what each caller sees', () => {
  it('lists only the teams one belongs to, all of them for superusers', async () => {
    const names = async (who: Who) => ((await s.api('GET', '/api/v1/teams?limit=200', undefined, bearer(tokens.get(`${who}/read`) as string))).json().items as { name: string }[]).map((t) => t.name);
    expect(await names('viewer')).toContain(T);
    expect(await names('outsider')).not.toContain(T);
    expect(await names('superuser')).toContain(T);
  });

  it('sees role changes at once (the principal cache is dropped)', async () => {
    const u = await createUser(s, 'climber');
    const tok = (await tokenFor(s, 'climber', 'write')).secret;
    const add = () => s.api('PUT', `/api/v1/teams/${T}/members/pawn`, { role: 'viewer' }, bearer(tok));
    expect((await s.api('GET', `/api/v1/teams/${T}`, undefined, bearer(tok))).statusCode).toBe(404);
    await setRole(s, T, u, 'viewer');
    expect((await add()).statusCode).toBe(403);
    await setRole(s, T, u, 'admin');
    expect((await add()).statusCode).toBe(200);
    await s.api('DELETE', `/api/v1/teams/${T}/members/${u}`);
    expect((await s.api('GET', `/api/v1/teams/${T}`, undefined, bearer(tok))).statusCode).toBe(404);
  });
});

describe('owners', () => {
  it('a team keeps at least one owner: 409 team_last_owner, for superusers too', async () => {
    await createUser(s, 'solo');
    const tok = bearer((await tokenFor(s, 'solo', 'write')).secret);
    expect((await s.api('POST', '/api/v1/teams', { name: 'solo-team' }, tok)).statusCode).toBe(201);
    expectError(await s.api('PUT', '/api/v1/teams/solo-team/members/solo', { role: 'admin' }, tok), 409, 'team_last_owner');
    expectError(await s.api('DELETE', '/api/v1/teams/solo-team/members/solo', undefined, tok), 409, 'team_last_owner');
    expectError(await s.api('DELETE', '/api/v1/teams/solo-team/members/solo'), 409, 'team_last_owner');
    await setRole(s, 'solo-team', 'pawn', 'owner');
    expect((await s.api('DELETE', '/api/v1/teams/solo-team/members/solo', undefined, tok)).statusCode).toBe(200);
    const members = await s.api('GET', '/api/v1/teams/solo-team/members');
    expect(members.json().items.map((m: { username: string; role: string }) => [m.username, m.role])).toEqual([['pawn', 'owner']]);
    expectError(await s.api('DELETE', '/api/v1/teams/solo-team/members/nobody-here'), 404, 'not_found');
    expectError(await s.api('DELETE', '/api/v1/teams/solo-team/members/solo'), 404, 'not_found');
  });

  it('two owners demoting each other at once leave exactly one owner', async () => {
    await createTeam(s, 'duo');
    await createUser(s, 'ann');
    await createUser(s, 'ben');
    await setRole(s, 'duo', 'ann', 'owner');
    await setRole(s, 'duo', 'ben', 'owner');
    const ann = bearer((await tokenFor(s, 'ann', 'write')).secret);
    const ben = bearer((await tokenFor(s, 'ben', 'write')).secret);
    const [a, b] = await Promise.all([
      s.api('PUT', '/api/v1/teams/duo/members/ben', { role: 'member' }, ann),
      s.api('PUT', '/api/v1/teams/duo/members/ann', { role: 'member' }, ben),
    ]);
    // The loser is refused: 409 team_last_owner (or 403 when it already sees its own demotion).
    const [won, lost] = [a, b].sort((x, y) => x.statusCode - y.statusCode);
    expect(won.statusCode).toBe(200);
    expect([409, 403]).toContain(lost.statusCode);
    const owners = (await s.api('GET', '/api/v1/teams/duo/members')).json().items.filter((m: { role: string }) => m.role === 'owner');
    expect(owners).toHaveLength(1);
  });
});
