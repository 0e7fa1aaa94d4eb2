/**
 * The warning for deferred tools (`defer_loading: true`, messages and responses styles) left out of a translated
 * upstream's tool list because no tool search has loaded them; names listed up to a few, then counted.
 */
export function deferredToolsWarning(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(', ');
  const more = names.length > 5 ? ` and ${names.length - 5} more` : '';
  return `${names.length} deferred tool(s) (defer_loading: true) were left out, as no tool search has loaded them: ${shown}${more}.`;
}
