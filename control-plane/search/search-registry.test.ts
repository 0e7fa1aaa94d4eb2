import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../core/context.ts';
import type { Principal } from '../../core/auth/principal.ts';
import { decodeCursor } from '../../core/cursor.ts';
import { containsPattern, SearchRegistry, type SearchItem, type SearchProvider } from './search-registry.ts';

const ctx = {} as AppContext;
const p = { userId: 'u', isSuperuser: false, scope: 'read', via: 'token', tokenId: 't', teams: new Map() } as Principal;

function provider(type: string, count: number): SearchProvider {
  const all: SearchItem[] = Array.from({ length: count }, (_, i) => ({ type, id: `${type}${i}`, title: `${type} ${i}`, url: `/x/${i}`, team: null }));
  return { type, search: async (_c, _p, q, limit) => all.filter((x) => x.title.includes(q)).slice(0, limit) };
}

async function walk(reg: SearchRegistry, limit: number, types?: string[]): Promise<string[]> {
  const ids: string[] = [];
  let after: (string | number)[] | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page = await reg.search(ctx, p, ' ', { limit, after }, types);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    ids.push(...page.items.map((i) => i.id));
    if (!page.next_cursor) return ids;
    after = decodeCursor(page.next_cursor, 2);
  }
  throw new Error('too many pages');
}

describe('SearchRegistry', () => {
  const reg = new SearchRegistry();
  reg.add(provider('team', 3));
  reg.add(provider('token', 0));
  reg.add(provider('webhook', 4));
  const everything = ['team0', 'team1', 'team2', 'webhook0', 'webhook1', 'webhook2', 'webhook3'];

  it('pages through every provider in order without gaps or repeats', async () => {
    for (const limit of [1, 2, 3, 4, 7, 50]) expect(await walk(reg, limit)).toEqual(everything);
  });

  it('ends with a null cursor when the last page is exactly full', async () => {
    const page = await reg.search(ctx, p, ' ', { limit: 7, after: null });
    expect(page.items).toHaveLength(7);
    expect(page.next_cursor).toBeNull();
  });

  it('narrows to the given types and refuses a duplicate provider', async () => {
    expect(await walk(reg, 2, ['webhook'])).toEqual(['webhook0', 'webhook1', 'webhook2', 'webhook3']);
    expect(() => reg.add(provider('team', 1))).toThrow(/already registered/);
    expect(reg.types).toEqual(['team', 'token', 'webhook']);
  });

  it('escapes LIKE wildcards', () => {
    expect(containsPattern('50%_a\\b')).toBe('%50\\%\\_a\\\\b%');
  });
});
