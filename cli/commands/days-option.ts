/** `--days N`: the period of a report command, the last N days (usage, compression savings). */
import { CliError } from '../cli-error.ts';
import type { OptionSpec } from '../command.ts';

export const DAYS_OPTION = (description: string): OptionSpec => ({ type: 'string', value: 'N', description });

/** The days asked for, or `fallback`; the server checks the range (1 to 366). */
export function days(raw: string | undefined, fallback: number, helpFor: string): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,3}$/.test(raw)) throw new CliError('usage', `--days must be a whole number of days (got "${raw}").`, { helpFor });
  return Number(raw);
}
