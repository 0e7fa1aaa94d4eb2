/** `--limit N`: how many items a list command prints at most (it follows next_cursor until then). */
import { CliError } from '../cli-error.ts';
import type { OptionSpec } from '../command.ts';

export const DEFAULT_MAX_ITEMS = 50;

export const LIMIT_OPTION = (what: string): OptionSpec => ({ type: 'string', value: 'N', description: `At most N ${what} (default ${DEFAULT_MAX_ITEMS}).` });

export function maxItems(raw: string | undefined, helpFor: string): number {
  if (raw === undefined) return DEFAULT_MAX_ITEMS;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1) throw new CliError('usage', `--limit must be a whole number of 1 or more (got "${raw}").`, { helpFor });
  return Number(raw);
}
