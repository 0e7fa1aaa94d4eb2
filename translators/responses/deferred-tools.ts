// Deferred tools of the responses style (`defer_loading: true` on a function, or on a function inside a namespace):
// the model may call one only once a tool search has loaded it. Other styles know no such thing, so the decoder
// leaves out those no search has loaded yet (kept whole for a responses upstream). A tool counts as loaded when a
// `tool_search_output` item lists it or an earlier `function_call` called it. Keys: `name`, or `namespace.name`
// joined by a NUL for a function inside a namespace.
// @see https://platform.openai.com/docs/guides/tools-tool-search

import { isPlainObject } from '../tool-arguments.ts';

export function toolKey(name: string, namespace?: string): string {
  return namespace === undefined ? name : `${namespace}\u0000${name}`;
}

/** Keys of the tools a tool search loaded or a call used, in these input items. */
export function loadedResponsesTools(items: readonly unknown[]): Set<string> {
  const keys = new Set<string>();
  for (const item of items) {
    if (!isPlainObject(item)) continue;
    if (item.type === 'function_call' && typeof item.name === 'string') {
      keys.add(toolKey(item.name, typeof item.namespace === 'string' && item.namespace !== '' ? item.namespace : undefined));
    }
    if (item.type !== 'tool_search_output' || !Array.isArray(item.tools)) continue;
    for (const t of item.tools) {
      if (!isPlainObject(t) || typeof t.name !== 'string') continue;
      if (t.type === 'function') keys.add(t.name);
      else if (t.type === 'namespace' && Array.isArray(t.tools)) {
        for (const f of t.tools) if (isPlainObject(f) && typeof f.name === 'string') keys.add(toolKey(f.name, t.name));
      }
    }
  }
  return keys;
}
