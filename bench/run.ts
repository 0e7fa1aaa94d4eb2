#!/usr/bin/env node
/**
 * Benchmarks: `npm run bench` runs every suite; `npm run bench -- gateway` runs the named ones.
 * A suite is one file in bench/suites/ that exports `suite: BenchSuite`; adding a file registers it.
 * Options after the names are passed to each suite (e.g. `npm run bench -- gateway --rounds 5 --write`).
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface BenchSuite {
  name: string;
  description: string;
  run(args: string[]): Promise<void>;
}

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'suites');

async function loadSuites(): Promise<BenchSuite[]> {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).sort();
  const out: BenchSuite[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(DIR, f)).href)) as { suite?: BenchSuite };
    if (mod.suite) out.push(mod.suite);
  }
  return out;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const isName = (a: string, i: number) => !a.startsWith('-') && (i === 0 || !argv[i - 1].startsWith('--'));
  const names = argv.filter(isName);
  // By position, not by value: `embedded --engines embedded` keeps the option's value.
  const options = argv.filter((a, i) => !isName(a, i));
  const suites = await loadSuites();
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: npm run bench [-- <suite>… [options]]\nsuites:\n${suites.map((s) => `  ${s.name.padEnd(12)} ${s.description}`).join('\n')}\n`);
    return;
  }
  const unknown = names.filter((n) => !suites.some((s) => s.name === n));
  if (unknown.length) throw new Error(`unknown suite(s): ${unknown.join(', ')}; known: ${suites.map((s) => s.name).join(', ')}`);
  for (const s of suites) {
    if (names.length > 0 && !names.includes(s.name)) continue;
    process.stdout.write(`\n== ${s.name}: ${s.description}\n`);
    await s.run(options);
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
