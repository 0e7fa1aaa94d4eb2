/**
 * The shape of a CLI command and of a group of commands. A command declares its options and positional arguments
 * (the dispatcher parses them, checks required ones and prints --help from the declaration) and a `run` that gets
 * the parsed values, the output and a lazily built API client.
 */
import type { ApiClient } from './api-client.ts';
import type { Output } from './output.ts';
import type { Settings } from './settings.ts';

export interface OptionSpec {
  type: 'string' | 'boolean';
  description: string;
  short?: string;
  /** Placeholder in the usage line, e.g. NAME or 30d. */
  value?: string;
  required?: boolean;
}

export type OptionSpecs = Record<string, OptionSpec>;

export type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]: O[K]['type'] extends 'boolean' ? boolean | undefined : string | undefined;
};

export interface ArgSpec {
  name: string;
  description: string;
  required?: boolean;
}

export interface CommandContext<O extends OptionSpecs = OptionSpecs> {
  /** Positional arguments by their declared name. */
  args: Record<string, string | undefined>;
  opts: OptionValues<O>;
  /** `--json` was given: print machine-readable JSON only. */
  json: boolean;
  out: Output;
  env: Record<string, string | undefined>;
  /** Server URL and token from SVC_URL / SVC_TOKEN or the config file. */
  settings(): Settings;
  /** A client of the REST API; `token: null` sends no Authorization header, a string sends that token instead. */
  api(opts?: { token?: string | null }): ApiClient;
}

export interface Command<O extends OptionSpecs = OptionSpecs> {
  kind: 'command';
  name: string;
  summary: string;
  /** Longer text printed by --help below the usage line. */
  description?: string;
  options?: O;
  args?: ArgSpec[];
  examples?: string[];
  run(ctx: CommandContext<O>): Promise<void>;
}

export interface Group {
  kind: 'group';
  name: string;
  summary: string;
  children: (Command | Group)[];
}

export function defineCommand<O extends OptionSpecs>(c: Omit<Command<O>, 'kind'>): Command<O> {
  return { kind: 'command', ...c };
}

export function defineGroup(name: string, summary: string, children: (Command | Group)[]): Group {
  return { kind: 'group', name, summary, children };
}
