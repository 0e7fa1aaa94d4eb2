/**
 * requireTeam over every need, including `deploy` (no identity route needs it; releases will): scope caps the role,
 * non-members learn nothing (team_not_found), superusers pass every team check but not their token's scope.
 * The expected table is written out by hand.
 */
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../errors.ts';
import { requireSuperuser, requireTeam, type Need, type Principal, type Scope, type TeamRole } from './principal.ts';

type Who = TeamRole | 'none' | 'superuser';
type Cell = 'ok' | 'team_not_found' | 'insufficient_scope' | 'forbidden';
const o: Cell = 'ok';
const S: Cell = 'insufficient_scope';
const F: Cell = 'forbidden';
const N: Cell = 'team_not_found';

//                                            read  deploy write   (token scope)
const TABLE: Record<Need, Record<Who, [Cell, Cell, Cell]>> = {
  read: {
    viewer: [o, o, o],
    member: [o, o, o],
    admin: [o, o, o],
    owner: [o, o, o],
    none: [N, N, N],
    superuser: [o, o, o],
  },
  deploy: {
    viewer: [S, F, F],
    member: [S, o, o],
    admin: [S, o, o],
    owner: [S, o, o],
    none: [N, N, N],
    superuser: [S, o, o],
  },
  write: {
    viewer: [S, S, F],
    member: [S, S, o],
    admin: [S, S, o],
    owner: [S, S, o],
    none: [N, N, N],
    superuser: [S, S, o],
  },
  manage: {
    viewer: [S, S, F],
    member: [S, S, F],
    admin: [S, S, o],
    owner: [S, S, o],
    none: [N, N, N],
    superuser: [S, S, o],
  },
  own: {
    viewer: [S, S, F],
    member: [S, S, F],
    admin: [S, S, F],
    owner: [S, S, o],
    none: [N, N, N],
    superuser: [S, S, o],
  },
};

const SCOPES: Scope[] = ['read', 'deploy', 'write'];

function principal(who: Who, scope: Scope): Principal {
  const teams = new Map<string, TeamRole>([['other', 'owner']]);
  if (who !== 'none' && who !== 'superuser') teams.set('t', who);
  return { userId: 'u', isSuperuser: who === 'superuser', scope, via: 'token', tokenId: 'k', teams };
}

function outcome(fn: () => void): Cell {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (!isSvcError(e)) throw e;
    return e.code as Cell;
  }
}

describe('requireTeam', () => {
  for (const need of Object.keys(TABLE) as Need[]) {
    it(`need ${need}`, () => {
      const actual = Object.fromEntries(
        (Object.keys(TABLE[need]) as Who[]).map((who) => [who, SCOPES.map((scope) => outcome(() => requireTeam(principal(who, scope), 't', need)))]),
      );
      expect(actual).toEqual(TABLE[need]);
    });
  }

  it('a role in another team gives nothing in this one', () => {
    expect(outcome(() => requireTeam(principal('none', 'write'), 't', 'read'))).toBe('team_not_found');
    expect(outcome(() => requireTeam(principal('none', 'write'), 'other', 'own'))).toBe('ok');
  });
});

describe('requireSuperuser', () => {
  it('needs a superuser, and a scope that allows the need', () => {
    expect(outcome(() => requireSuperuser(principal('owner', 'write')))).toBe('superuser_required');
    expect(outcome(() => requireSuperuser(principal('superuser', 'write')))).toBe('ok');
    expect(outcome(() => requireSuperuser(principal('superuser', 'deploy')))).toBe('insufficient_scope');
    expect(outcome(() => requireSuperuser(principal('superuser', 'read'), 'read'))).toBe('ok');
  });
});
