/**
 * Responses `namespace` tools (a named group of function tools; Codex CLI's `multi_agent_v1`) for upstreams of
 * other styles, which know only a flat list of functions: each function becomes `<namespace>__<name>`, reduced to
 * the characters and length every style accepts (letters, digits, `_`, `-`; a letter or `_` first; at most 64).
 * A flat name already taken (by an ordinary tool or another flattened one) gets a `_2`, `_3`… suffix, never merged;
 * `Conversation.toolRenames` remembers each one so that the answer calls the function in its namespace again.
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools
 */
import type { ToolRenames } from '../model.ts';

const MAX = 64;

function clean(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** `<namespace>__<name>` within the shared name rules (before any collision suffix). */
export function flatToolName(namespace: string, name: string): string {
  let flat = `${clean(namespace)}__${clean(name)}`;
  if (!/^[A-Za-z_]/.test(flat)) flat = `_${flat}`;
  return flat.slice(0, MAX);
}

/** Names the flattened functions of one request take, kept apart from the names already used. */
export class ToolFlattener {
  readonly renames: ToolRenames = {};
  #taken: Set<string>;
  #byOrigin = new Map<string, string>();

  constructor(taken: Iterable<string>) {
    this.#taken = new Set(taken);
  }

  /** The flat name of `name` in `namespace`: the same one every time for the same pair. */
  name(namespace: string, name: string): string {
    const origin = `${namespace}\u0000${name}`;
    const known = this.#byOrigin.get(origin);
    if (known !== undefined) return known;
    const base = flatToolName(namespace, name);
    let flat = base;
    for (let k = 2; this.#taken.has(flat); k++) flat = `${base.slice(0, MAX - String(k).length - 1)}_${k}`;
    this.#taken.add(flat);
    this.#byOrigin.set(origin, flat);
    this.renames[flat] = { name, namespace };
    return flat;
  }

  get used(): boolean {
    return this.#byOrigin.size > 0;
  }
}
