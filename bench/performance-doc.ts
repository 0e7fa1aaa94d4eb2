/**
 * docs/performance.md is made of sections, each rewritten by its suite with `--write` between its own markers
 * (`<!-- bench:<name>:start -->` … `:end -->`); text outside the markers is left alone. A section not there yet is
 * put after the end marker of `after` when that exists, else at the end.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const NEW_DOC = '# Performance\n\nFigures from `npm run bench` (bench/). Each section is rewritten by its suite with `--write`.\n';

export function writePerformanceSection(root: string, name: string, body: string, after?: string): void {
  const file = join(root, 'docs', 'performance.md');
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  let doc = existsSync(file) ? readFileSync(file, 'utf8') : NEW_DOC;
  const section = `${start}\n${body}\n${end}`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  const afterEnd = after === undefined ? -1 : doc.indexOf(`<!-- bench:${after}:end -->`);
  if (i >= 0 && j > i) doc = doc.slice(0, i) + section + doc.slice(j + end.length);
  else if (afterEnd >= 0) {
    const at = afterEnd + `<!-- bench:${after}:end -->`.length;
    doc = `${doc.slice(0, at)}\n\n${section}${doc.slice(at)}`;
  } else doc = `${doc.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, doc);
}
