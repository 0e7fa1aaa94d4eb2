/**
 * svc ai aliases | prices | calls end to end, and the CLI's own sentences for argument mistakes: the real CLI as a
 * child process against a listening gateway with fake upstreams.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../support/test-server.ts';
import { createUser, setRole, tokenFor } from '../api/identity-fixtures.ts';
import { eventually, startLimitsEnv, type LimitsEnv } from '../limits/limits-env.ts';
import { runSvc } from './run-svc.ts';

let env: LimitsEnv;
let admin: Record<string, string>;
/** A member of team lim: kept bodies are shown to the team's members (not to an instance admin outside it). */
let member: Record<string, string>;

beforeAll(async () => {
  env = await startLimitsEnv();
  admin = { HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent', SVC_URL: env.s.url, SVC_TOKEN: ADMIN_TOKEN };
  const ann = await createUser(env.s, 'ann');
  await setRole(env.s, env.teamId, ann, 'member');
  member = { ...admin, SVC_TOKEN: (await tokenFor(env.s, ann, 'read')).secret };
});
afterAll(async () => env?.close());

const svc = (...args: string[]) => runSvc(args, admin);
const asMember = (...args: string[]) => runSvc(args, member);

describe('svc ai aliases', () => {
  it('sets, lists, shows and deletes an alias, as tables and as JSON', async () => {
    const set = await svc('ai', 'aliases', 'set', 'fast', '--models', 'gpt-4o-mini, gpt-4o');
    expect(set.stderr).toBe('');
    expect(set.stdout).toBe('Alias fast → gpt-4o-mini → gpt-4o.\n');
    const list = await svc('ai', 'aliases', 'list');
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME\s+MODELS \(IN ORDER\)\s+UPDATED$/);
    expect(list.stdout).toMatch(/^fast\s+gpt-4o-mini → gpt-4o\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    const json = JSON.parse((await svc('ai', 'aliases', 'show', 'fast', '--json')).stdout);
    expect(json).toMatchObject({ name: 'fast', models: ['gpt-4o-mini', 'gpt-4o'] });
    expect((await env.chatCall((await env.key()).secret, { model: 'fast', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);

    const nested = await svc('ai', 'aliases', 'set', 'faster', '--models', 'fast');
    expect(nested.code).toBe(1);
    expect(nested.stderr).toMatch(/aliases do not nest.*\(code validation_failed, HTTP 400\)/);
    expect((await svc('ai', 'aliases', 'delete', 'fast')).stdout).toBe('Alias fast deleted.\n');
    const gone = await svc('ai', 'aliases', 'show', 'fast', '--json');
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stderr)).toMatchObject({ error: { code: 'not_found', status: 404 } });
  });
});

describe('svc ai prices', () => {
  it('sets an override, shows the price that applies to a model, and removes it', async () => {
    const set = await svc('ai', 'prices', 'set', 'my-org/*', '--input', '0.5', '--output', '$2', '--json');
    expect(JSON.parse(set.stdout)).toMatchObject({ model: 'my-org/*', override: { input_per_mtok: 0.5, output_per_mtok: 2, cache_read_per_mtok: 0.5 } });
    const one = await svc('ai', 'prices', 'list', '--model', 'my-org/small');
    expect(one.stdout).toBe([
      'MODEL         INPUT  OUTPUT  CACHE READ  CACHE WRITE  SOURCE',
      'my-org/small  $0.50   $2.00       $0.50        $0.50  override (my-org/*)',
      '',
    ].join('\n'));
    expect(one.stderr).toBe('USD per million tokens.\n');
    const all = JSON.parse((await svc('ai', 'prices', 'list', '--json')).stdout) as { items: { model: string }[] };
    expect(all.items.length).toBeGreaterThan(10);
    expect(all.items.map((p) => p.model)).toContain('my-org/*');
    const bad = await svc('ai', 'prices', 'set', 'x', '--input', 'cheap', '--output', '1');
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toContain('--input must be dollars per million tokens, such as 2.5 or 0.15 (got "cheap").');
    expect((await svc('ai', 'prices', 'delete', 'my-org/*')).stdout).toMatch(/^Override of my-org\/\* removed; it has no price now\.\n$/);
  });
});

describe('svc ai calls', () => {
  it('lists kept calls and shows one with its request and answer', async () => {
    const key = await env.key({ log_bodies: '1d' });
    expect((await env.chatCall(key.secret)).status).toBe(200);
    await eventually(async () => ((await env.s.db.query('SELECT 1 FROM call_bodies WHERE key_id = $1', [key.id])).rows.length ? true : undefined), 20_000);
    const list = await asMember('ai', 'calls', 'list', '--key', key.id);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+WHEN\s+KEY\s+MODEL\s+STATUS\s+STREAM\s+CHARS IN\/OUT\s+KEPT UNTIL$/);
    const id = /^(\S+)\s/m.exec(list.stdout.split('\n')[1])?.[1] as string;
    expect(list.stdout).toMatch(new RegExp(`^${id}\\s+\\S+\\s+${key.id}\\s+gpt-4o-mini\\s+200\\s+no\\s+\\d+/\\d+\\s+\\S+$`, 'm'));
    const shown = await asMember('ai', 'calls', 'show', id);
    expect(shown.stdout).toMatch(/^model:\s+gpt-4o-mini$/m);
    expect(shown.stdout).toContain('\nRequest:\n{\n  "model": "gpt-4o-mini"');
    expect(shown.stdout).toContain('\nAnswer:\n');
    expect(JSON.parse((await asMember('ai', 'calls', 'show', id, '--json')).stdout)).toMatchObject({ id, request: { model: 'gpt-4o-mini' } });
    const none = await asMember('ai', 'calls', 'list', '--key', 'key_none');
    expect(none.stdout).toMatch(/^No kept calls\./);
  });
});

describe('argument mistakes', () => {
  const cases: [string[], string][] = [
    [['ai', 'keys', 'create', '--name', 'x', '--team', 'lim', '--budget', '-5'], '--budget must be an amount of dollars such as 25 or 12.50 (got "-5").'],
    [['ai', 'keys', 'create', '--name', 'x', '--budget'], 'The option --budget needs a value: --budget DOLLARS. A value that starts with a dash is written --budget=-value.'],
    [['ai', 'keys', 'create', '--name', 'x', '--budget', '--own'], 'The option --budget needs a value: --budget DOLLARS (it is followed by --own, which is not taken as its value).'],
    [['ai', 'keys', 'create', '--nmae', 'x'], '"svc ai keys create" has no option --nmae. Did you mean --name?'],
    [['ai', 'keys', 'list', '--colour', 'red'], '"svc ai keys list" has no option --colour. Options of "svc ai keys list": '],
    [['ai', 'keys', 'create', '--name', 'x', '--own=yes'], 'The option --own is a switch and takes no value (got "--own=yes"); leave the value out.'],
    [['ai', 'aliases', 'set', 'fast'], 'The option --models is required: --models a,b,c.'],
    [['ai', 'calls', 'show'], 'The argument <id> is required (The call id (from svc ai calls list).).'],
    [['ai', 'aliases', 'list', 'extra'], 'Unexpected argument "extra": it takes no arguments.'],
    [['ai', 'calls', 'list', '--limit', '0'], '--limit must be a whole number of 1 or more (got "0").'],
    [['ai', 'nope'], 'Unknown command "nope" for "svc ai"; commands: keys, quota, usage, compression, accounts, aliases, prices, calls.'],
    [['-x'], 'Unknown command "-x" for "svc"'],
  ];
  it('answers each with a sentence of ours and exit status 2, never the parser text', async () => {
    const results = await Promise.all(cases.map(([args]) => svc(...args)));
    results.forEach((r, i) => {
      const [args, sentence] = cases[i];
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr, args.join(' ')).toContain(`error: ${sentence}`);
      expect(r.stderr).toMatch(/Run "svc[^"]*--help" for usage\.\n$/);
      expect(r.stderr).not.toMatch(/ambiguous|ERR_PARSE_ARGS|Unknown option '|argument missing/);
    });
  });

  it('has --help on every new command', async () => {
    const commands = [['ai', 'aliases'], ['ai', 'aliases', 'list'], ['ai', 'aliases', 'show'], ['ai', 'aliases', 'set'], ['ai', 'aliases', 'delete'],
      ['ai', 'prices', 'list'], ['ai', 'prices', 'set'], ['ai', 'prices', 'delete'], ['ai', 'calls', 'list'], ['ai', 'calls', 'show'],
      ['webhooks', 'create'], ['webhooks', 'deliveries'], ['users', 'create'], ['users', 'list']];
    const results = await Promise.all(commands.map((c) => svc(...c, '--help')));
    results.forEach((r, i) => {
      expect(r.code, commands[i].join(' ')).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: svc ${commands[i].join(' ')} `));
    });
    expect(results[0].stdout).toMatch(/^ {2}set +Create or replace an alias \(superusers\)$/m);
  });

  it('with --json, says it as one JSON error object', async () => {
    const r = await svc('ai', 'keys', 'create', '--json', '--name', 'x', '--budget');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({ error: { code: 'invalid_command_line', message: expect.stringContaining('The option --budget needs a value'), details: {} } });
  });
});
