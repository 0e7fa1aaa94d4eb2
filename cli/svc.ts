#!/usr/bin/env node
/**
 * svc — the command-line client of the svc REST API. It imports nothing of the server: every command is an HTTP
 * call through cli/api-client.ts. Server URL and token come from SVC_URL / SVC_TOKEN, else the config file written
 * by `svc login` (cli/config-file.ts). Exit status: 0 ok, 1 refused by the server (or not logged in), 2 bad command
 * line, 3 server not reachable (cli-error.ts).
 *
 * Adding commands
 * ---------------
 * One file per group in cli/commands/ (e.g. cli/commands/ai.ts), plus ONE line in the ROOT list below.
 *
 *   // cli/commands/widgets.ts
 *   import { defineCommand, defineGroup } from '../command.ts';
 *   const list = defineCommand({
 *     name: 'list',
 *     summary: 'List widgets',                                  // shown in the group's --help
 *     options: { team: { type: 'string', value: 'TEAM', description: 'Only this team.' } },
 *     args: [],                                                 // positionals: { name, description, required }
 *     examples: ['svc widgets list --team payments'],
 *     async run(ctx) {
 *       const items = await ctx.api().listAll<Widget>('/api/v1/widgets', { team: ctx.opts.team });
 *       ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, [{ title: 'id', value: (w) => w.id }]));
 *     },
 *   });
 *   export const widgetsGroup = defineGroup('widgets', 'Manage widgets', [list]);
 *
 * Groups nest: `defineGroup('ai', '…', [keysGroup, quota, usage, accountsGroup])` gives `svc ai keys create …`.
 * The dispatcher (cli/run-cli.ts) gives every command --help and --json, parses and checks declared options and
 * arguments (required ones included), and prints errors. In `run`:
 *   - ctx.opts / ctx.args: parsed values; throw new CliError('usage', '…', { helpFor: 'svc widgets list' }) for bad values.
 *   - ctx.api(): client with the configured token (fails with "not logged in" when there is none);
 *     ctx.api({ token: key }) sends another credential (e.g. a gateway key), ctx.api({ token: null }) none.
 *   - ctx.out.result(data, human): `data` as JSON with --json, else the human rendering (out.table, out.fields,
 *     out.line). Notes and warnings (out.note, out.warn) go to stderr.
 *   - API errors need no handling: they reach the user as "error: <message> (code <code>, HTTP <status>)".
 * Add the new commands, with an example each, to docs/cli.md; test them in test/cli/ against a real server.
 */
import { readFileSync } from 'node:fs';
import { defineGroup } from './command.ts';
import { runCli } from './run-cli.ts';
import { login, logout, whoami } from './commands/login.ts';
import { teamsGroup } from './commands/teams.ts';
import { tokensGroup } from './commands/tokens.ts';
import { trustRulesGroup } from './commands/trust-rules.ts';
import { errorsGroup } from './commands/errors.ts';
import { aiGroup } from './commands/ai.ts';
import { usersGroup } from './commands/users.ts';
import { webhooksGroup } from './commands/webhooks.ts';

const ROOT = defineGroup('svc', 'Command-line client of svc, the AI gateway and error-tracking service.', [
  login,
  logout,
  whoami,
  tokensGroup,
  trustRulesGroup,
  teamsGroup,
  usersGroup,
  errorsGroup,
  aiGroup,
  webhooksGroup,
]);

function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

process.exitCode = await runCli(ROOT, process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr, version: version() });
