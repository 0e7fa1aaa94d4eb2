/**
 * Parses one command's options and arguments from its declaration, with our own sentence for every mistake: an
 * unknown option (with the closest known one), a value missing or given to a flag that takes none, a missing
 * required option or argument, one argument too many. node:util's parseArgs reads the tokens (strict off, so that
 * it never throws its own text); the checks are ours. A value that starts with a dash is taken when it is a number
 * (`--budget -5` then meets the command's own check, "must be an amount of dollars"); any other must be written
 * `--name=-value`.
 */
import { parseArgs } from 'node:util';
import { CliError } from './cli-error.ts';
import type { Command, OptionSpecs } from './command.ts';

export interface ParsedLine {
  opts: Record<string, string | boolean | undefined>;
  args: Record<string, string | undefined>;
}

const NEGATIVE_NUMBER = /^-\d/;

/** `--name -5` → `--name=-5` (and `-n -5` → `-n=-5` is not a form parseArgs knows, so `--long=-5`). */
function attachNegativeNumbers(argv: string[], specs: OptionSpecs): string[] {
  const out: string[] = [];
  const long = (token: string): string | undefined => {
    if (token.startsWith('--') && !token.includes('=')) return token.slice(2);
    const short = /^-([A-Za-z])$/.exec(token)?.[1];
    return short ? Object.keys(specs).find((n) => specs[n].short === short) : undefined;
  };
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (token === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const name = long(token);
    const next = argv[i + 1];
    if (name && specs[name]?.type === 'string' && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`--${name}=${next}`);
      i++;
    } else out.push(token);
  }
  return out;
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = here;
    }
  }
  return row[b.length];
}

function unknownOption(raw: string, specs: OptionSpecs, helpFor: string): CliError {
  const name = raw.replace(/^-+/, '');
  const names = Object.keys(specs);
  const close = names.filter((n) => n.startsWith(name) || distance(n, name) <= (name.length >= 4 ? 2 : 1));
  const hint = close.length ? ` Did you mean ${close.map((n) => `--${n}`).join(' or ')}?` : ` Options of "${helpFor}": ${names.map((n) => `--${n}`).join(', ')}.`;
  return new CliError('usage', `"${helpFor}" has no option ${raw}.${hint}`, { helpFor });
}

function usage(spec: OptionSpecs[string], name: string): string {
  return `--${name} ${spec.value ?? name.toUpperCase()}`;
}

export function parseCommandLine(path: string[], c: Command, argv: string[], globals: OptionSpecs): ParsedLine {
  const helpFor = path.join(' ');
  const specs = { ...c.options, ...globals };
  const { tokens } = parseArgs({
    args: attachNegativeNumbers(argv, specs),
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: Object.fromEntries(Object.entries(specs).map(([n, o]) => [n, o.short ? { type: o.type, short: o.short } : { type: o.type }])),
  });
  const opts: ParsedLine['opts'] = {};
  const positionals: string[] = [];
  for (const t of tokens) {
    if (t.kind === 'positional') positionals.push(t.value);
    if (t.kind !== 'option') continue;
    const spec = specs[t.name];
    if (!spec) throw unknownOption(t.rawName, specs, helpFor);
    if (spec.type === 'boolean') {
      if (t.inlineValue) throw new CliError('usage', `The option --${t.name} is a switch and takes no value (got "${t.rawName}=${t.value ?? ''}"); leave the value out.`, { helpFor });
      opts[t.name] = true;
    } else {
      // Without strict, parseArgs takes the next word even when it is an option: that is a missing value too.
      if (t.value === undefined || (!t.inlineValue && t.value.startsWith('-'))) {
        const followed = t.value === undefined ? '' : ` (it is followed by ${t.value}, which is not taken as its value)`;
        throw new CliError('usage', `The option --${t.name} needs a value: ${usage(spec, t.name)}${followed}. A value that starts with a dash is written --${t.name}=-value.`, { helpFor });
      }
      opts[t.name] = t.value;
    }
  }
  for (const [n, o] of Object.entries(c.options ?? {})) {
    if (o.required && (opts[n] === undefined || opts[n] === '')) throw new CliError('usage', `The option --${n} is required: ${usage(o, n)}.`, { helpFor });
  }
  const declared = c.args ?? [];
  if (positionals.length > declared.length) {
    const expected = declared.length ? `it takes ${declared.map((a) => `<${a.name}>`).join(' ')}` : 'it takes no arguments';
    throw new CliError('usage', `Unexpected argument "${positionals[declared.length]}": ${expected}.`, { helpFor });
  }
  const args: ParsedLine['args'] = {};
  declared.forEach((a, i) => {
    args[a.name] = positionals[i];
    if (a.required && !args[a.name]) throw new CliError('usage', `The argument <${a.name}> is required (${a.description}).`, { helpFor });
  });
  return { opts, args };
}
