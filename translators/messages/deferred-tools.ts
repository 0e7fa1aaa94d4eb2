/**
 * Deferred tools of the messages style (`defer_loading: true`): the client lists them but the model may call one
 * only after a tool search has loaded it. A messages-style upstream does that itself; any other style knows no such
 * thing and would offer every listed tool as callable, so the decoder leaves out the ones no search has loaded yet
 * (Claude Code lists a `DeferredToolPlaceholder` that must never be called).
 * A tool counts as loaded when a `tool_reference` block names it anywhere in the conversation (a client-run search's
 * `tool_result` or a server search's `tool_search_tool_result`), or when an earlier turn already called it.
 * @see https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/tool-search-tool
 */
import { isPlainObject } from '../tool-arguments.ts';

/** Names of tools that a tool search loaded, or that were called, in these messages. */
export function loadedToolNames(messages: readonly unknown[]): Set<string> {
  const names = new Set<string>();
  const visit = (v: unknown, depth: number): void => {
    if (depth > 8) return;
    if (Array.isArray(v)) {
      for (const x of v) visit(x, depth + 1);
      return;
    }
    if (!isPlainObject(v)) return;
    if (v.type === 'tool_reference' && typeof v.tool_name === 'string') names.add(v.tool_name);
    if (v.type === 'tool_use' && typeof v.name === 'string') names.add(v.name);
    for (const x of Object.values(v)) if (typeof x === 'object' && x !== null) visit(x, depth + 1);
  };
  visit(messages, 0);
  return names;
}
