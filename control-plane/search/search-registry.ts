/**
 * GET /api/v1/search: one item shape for every resource type, `{type, id, title, url, team}`, over what the caller
 * may see. Each resource type is a provider:
 *
 *   export const keysSearch: SearchProvider = {
 *     type: 'key',
 *     async search(ctx, p, q, limit) { ...SELECT ... WHERE name ILIKE $1 ESCAPE '\' ... LIMIT limit; return items },
 *   };
 *
 * and one line in control-plane/plugin.ts: `search.add(keysSearch);`. A provider returns at most `limit` items in a
 * stable order (the registry pages through providers in registration order with an opaque cursor) and only items
 * the principal may read.
 */
import type { AppContext } from '../../core/context.ts';
import type { Principal } from '../../core/auth/principal.ts';
import { encodeCursor } from '../../core/cursor.ts';
import type { ListParams } from '../../core/http/list.ts';

export interface SearchItem {
  type: string;
  id: string;
  title: string;
  /** Absolute URL of the resource in this service's API. */
  url: string;
  /** The team the resource belongs to (its id), or null for resources of no team (tokens). */
  team: string | null;
}

export interface SearchProvider {
  type: string;
  search(ctx: AppContext, p: Principal, q: string, limit: number): Promise<SearchItem[]>;
}

/** How deep a page may reach into one provider's results. */
export const MAX_SEARCH_DEPTH = 1000;

/** A LIKE pattern that matches q anywhere, with %, _ and \ taken literally (use with ESCAPE '\'). */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The absolute API URL of a resource path (e.g. `/api/v1/teams/abc`). */
export function resourceUrl(ctx: AppContext, path: string): string {
  return `${ctx.config.publicUrl}${path}`;
}

export class SearchRegistry {
  #providers: SearchProvider[] = [];

  add(provider: SearchProvider): void {
    if (this.#providers.some((p) => p.type === provider.type)) throw new Error(`A search provider for "${provider.type}" is already registered`);
    this.#providers.push(provider);
  }

  get types(): string[] {
    return this.#providers.map((p) => p.type);
  }

  /**
   * One page of results. The cursor is [provider index, items of that provider already returned]; a provider is
   * asked for what it has up to the end of the page, and the next provider starts when it runs out.
   */
  async search(ctx: AppContext, p: Principal, q: string, page: ListParams, types?: readonly string[]): Promise<{ items: SearchItem[]; next_cursor: string | null }> {
    const providers = this.#providers.filter((x) => !types || types.includes(x.type));
    let [index, offset] = page.after ? [Number(page.after[0]), Number(page.after[1])] : [0, 0];
    const items: SearchItem[] = [];
    let last: [number, number] | null = null;
    while (index < providers.length && items.length <= page.limit) {
      const want = page.limit + 1 - items.length;
      const depth = Math.min(offset + want, MAX_SEARCH_DEPTH);
      const found = offset < depth ? await providers[index].search(ctx, p, q, depth) : [];
      const slice = found.slice(offset, depth);
      for (const item of slice) {
        items.push(item);
        offset++;
        if (items.length === page.limit) last = [index, offset];
      }
      if (found.length < depth || depth === MAX_SEARCH_DEPTH) {
        index++;
        offset = 0;
      }
    }
    const more = items.length > page.limit;
    return { items: items.slice(0, page.limit), next_cursor: more && last ? encodeCursor(last) : null };
  }
}
