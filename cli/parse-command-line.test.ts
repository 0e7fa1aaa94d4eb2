import { describe, expect, it } from 'vitest';
import { isCliError } from './cli-error.ts';
import { defineCommand, type OptionSpecs } from './command.ts';
import { parseCommandLine } from './parse-command-line.ts';

const GLOBALS: OptionSpecs = { json: { type: 'boolean', description: 'JSON.' } };
const command = defineCommand({
  name: 'create',
  summary: 'Create',
  args: [{ name: 'id', required: true, description: 'The id.' }],
  options: {
    name: { type: 'string', value: 'NAME', required: true, description: 'Name.' },
    budget: { type: 'string', value: 'DOLLARS', short: 'b', description: 'Budget.' },
    own: { type: 'boolean', description: 'Own.' },
  },
  run: async () => {},
});
const parse = (...argv: string[]) => parseCommandLine(['svc', 'create'], command, argv, GLOBALS);
const mistake = (...argv: string[]): string => {
  try {
    parse(...argv);
  } catch (e) {
    if (isCliError(e) && e.kind === 'usage' && e.helpFor === 'svc create') return e.message;
    throw e;
  }
  throw new Error('no mistake found');
};

describe('parseCommandLine', () => {
  it('reads options, switches, arguments and values after --', () => {
    expect(parse('x1', '--name', 'a', '--own', '--json')).toEqual({ opts: { name: 'a', own: true, json: true }, args: { id: 'x1' } });
    expect(parse('--name=a', '--budget', '-5', '--', '-x')).toEqual({ opts: { name: 'a', budget: '-5' }, args: { id: '-x' } });
    expect(parse('x', '--name', 'a', '-b', '-2.5').opts.budget).toBe('-2.5');
  });

  it('says every mistake in a sentence of its own', () => {
    expect(mistake('x', '--name', 'a', '--bugdet', '5')).toBe('"svc create" has no option --bugdet. Did you mean --budget?');
    expect(mistake('x', '--name', 'a', '--zzz')).toBe('"svc create" has no option --zzz. Options of "svc create": --name, --budget, --own, --json.');
    expect(mistake('x', '--name', 'a', '-q')).toMatch(/^"svc create" has no option -q\./);
    expect(mistake('x', '--name')).toBe('The option --name needs a value: --name NAME. A value that starts with a dash is written --name=-value.');
    expect(mistake('x', '--name', '--own')).toBe('The option --name needs a value: --name NAME (it is followed by --own, which is not taken as its value). A value that starts with a dash is written --name=-value.');
    expect(mistake('x', '--name', 'a', '--own=no')).toBe('The option --own is a switch and takes no value (got "--own=no"); leave the value out.');
    expect(mistake('x')).toBe('The option --name is required: --name NAME.');
    expect(mistake('--name', 'a')).toBe('The argument <id> is required (The id.).');
    expect(mistake('x', 'y', '--name', 'a')).toBe('Unexpected argument "y": it takes <id>.');
  });
});
