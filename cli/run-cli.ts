/**
 * The dispatcher: walks the argument list down the tree of groups to one command, prints --help from the
 * declarations, parses and checks options and arguments, runs the command and turns failures into a message on
 * stderr and an exit status (cli-error.ts lists them).
 */
import { ApiClient } from './api-client.ts';
import { CliError, isCliError } from './cli-error.ts';
import type { Command, CommandContext, Group, OptionSpecs } from './command.ts';
import { Output, type Writer } from './output.ts';
import { parseCommandLine } from './parse-command-line.ts';
import { resolveSettings, type Settings } from './settings.ts';

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: Writer;
  stderr: Writer;
  version?: string;
}

const GLOBAL_OPTIONS: OptionSpecs = {
  json: { type: 'boolean', description: 'Print the result as JSON (for scripts).' },
  help: { type: 'boolean', short: 'h', description: 'Show this help.' },
};

function optionUsage(name: string, o: OptionSpecs[string]): string {
  return o.type === 'boolean' ? `--${name}` : `--${name} ${o.value ?? name.toUpperCase()}`;
}

export function commandHelp(path: string[], c: Command): string {
  const opts = { ...c.options, ...GLOBAL_OPTIONS };
  const usage = [
    ...path,
    ...(c.args ?? []).map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)),
    ...Object.entries(c.options ?? {}).map(([n, o]) => (o.required ? optionUsage(n, o) : `[${optionUsage(n, o)}]`)),
    '[--json]',
  ].join(' ');
  const rows: [string, string][] = [
    ...(c.args ?? []).map((a): [string, string] => [`<${a.name}>`, a.description]),
    ...Object.entries(opts).map(([n, o]): [string, string] => [`${o.short ? `-${o.short}, ` : ''}${optionUsage(n, o)}`, o.description + (o.required ? ' (required)' : '')]),
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return [
    `Usage: ${usage}`,
    '',
    c.description ?? c.summary,
    '',
    'Options:',
    ...rows.map(([k, d]) => `  ${k.padEnd(width)}  ${d}`),
    ...(c.examples?.length ? ['', 'Examples:', ...c.examples.map((e) => `  ${e}`)] : []),
    '',
  ].join('\n');
}

export function groupHelp(path: string[], g: Group): string {
  const width = Math.max(...g.children.map((c) => c.name.length));
  return [
    `Usage: ${path.join(' ')} <command> [options]`,
    '',
    g.summary,
    '',
    'Commands:',
    ...g.children.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `Run "${path.join(' ')} <command> --help" for the options of a command.`,
    '',
  ].join('\n');
}

function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** The error code of a failure that never reached the server, for --json. */
const LOCAL_CODES = { usage: 'invalid_command_line', config: 'not_configured', connection: 'server_unreachable' } as const;

function report(e: unknown, out: Writer, json: boolean, env: CliIo['env']): number {
  if (!isCliError(e)) {
    out.write(`error: ${(e as Error)?.message ?? String(e)}\n`);
    if (env.SVC_DEBUG) out.write(`${(e as Error)?.stack ?? ''}\n`);
    return 1;
  }
  if (json) {
    // Scripts get one JSON object for every failure: the API's error object, or one of ours with a fixed code.
    const code = e.kind === 'api' ? e.code : LOCAL_CODES[e.kind];
    out.write(`${JSON.stringify({ error: { code, message: e.message, details: e.details ?? {}, ...(e.status === undefined ? {} : { status: e.status }) } })}\n`);
  } else if (e.kind === 'api') {
    out.write(`error: ${e.message} (code ${e.code}, HTTP ${e.status})\n`);
  } else {
    out.write(`error: ${e.message}\n`);
    if (e.kind === 'usage' && e.helpFor) out.write(`Run "${e.helpFor} --help" for usage.\n`);
  }
  return e.exitCode;
}

/** Runs one command line; resolves to the process exit status. */
export async function runCli(root: Group, argv: string[], io: CliIo): Promise<number> {
  const path = [root.name];
  let node: Command | Group = root;
  let rest = argv;
  while (node.kind === 'group') {
    const group: Group = node;
    const word = rest[0];
    if (word === undefined || word === '--help' || word === '-h' || word === 'help') {
      (word === undefined ? io.stderr : io.stdout).write(groupHelp(path, group));
      return word === undefined ? 2 : 0;
    }
    if (path.length === 1 && (word === '--version' || word === '-v')) {
      io.stdout.write(`${io.version ?? 'unknown'}\n`);
      return 0;
    }
    const next = group.children.find((c) => c.name === word);
    if (!next) {
      return report(new CliError('usage', `Unknown command "${word}" for "${path.join(' ')}"; commands: ${group.children.map((c) => c.name).join(', ')}.`, { helpFor: path.join(' ') }), io.stderr, rest.includes('--json'), io.env);
    }
    path.push(next.name);
    node = next;
    rest = rest.slice(1);
  }
  const command: Command = node;
  if (wantsHelp(rest)) {
    io.stdout.write(commandHelp(path, command));
    return 0;
  }
  const json = rest.includes('--json');
  try {
    const { opts, args } = parseCommandLine(path, command, rest, GLOBAL_OPTIONS);
    const out = new Output(Boolean(opts.json), io.stdout, io.stderr);
    let settings: Settings | undefined;
    const getSettings = () => (settings ??= resolveSettings(io.env, (m) => out.warn(m)));
    const ctx: CommandContext = {
      args,
      opts: opts as CommandContext['opts'],
      json: Boolean(opts.json),
      out,
      env: io.env,
      settings: getSettings,
      api: (o = {}) => {
        const s = getSettings();
        if (o.token !== undefined) return new ApiClient(s.url, o.token);
        if (!s.token) throw new CliError('config', `Not logged in to ${s.url}: run "svc login" or set SVC_TOKEN.`);
        return new ApiClient(s.url, s.token, s.refresh);
      },
    };
    await command.run(ctx);
    return 0;
  } catch (e) {
    return report(e, io.stderr, json, io.env);
  }
}
