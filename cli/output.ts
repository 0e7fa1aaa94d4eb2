/**
 * What the CLI prints: tables and `label: value` lines for people, or with --json exactly one JSON document on
 * stdout for scripts. Notes and warnings go to stderr so that stdout stays parseable.
 */

export interface Column<R> {
  title: string;
  value: (row: R) => unknown;
  /** Numbers read best right-aligned, so that their digits line up. */
  align?: 'right';
}

export interface Writer {
  write(text: string): unknown;
}

/** null/undefined → "-", RFC 3339 times without milliseconds, objects as compact JSON. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined || v === '') return '-';
  if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v)) return v.replace(/\.\d+Z$/, 'Z');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function renderTable<R>(rows: readonly R[], columns: readonly Column<R>[]): string {
  const cells = rows.map((r) => columns.map((c) => formatValue(c.value(r)).replace(/\s+/g, ' ')));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((row) => row[i].length)));
  const pad = (v: string, i: number) => (columns[i].align === 'right' ? v.padStart(widths[i]) : i === columns.length - 1 ? v : v.padEnd(widths[i]));
  const line = (vals: string[]) => vals.map(pad).join('  ').trimEnd();
  return [line(columns.map((c) => c.title.toUpperCase())), ...cells.map(line)].join('\n') + '\n';
}

export function renderFields(pairs: readonly [string, unknown][]): string {
  const width = Math.max(0, ...pairs.map(([k]) => k.length + 1));
  return pairs.map(([k, v]) => `${`${k}:`.padEnd(width)}  ${formatValue(v)}`).join('\n') + '\n';
}

export class Output {
  readonly json: boolean;
  #stdout: Writer;
  #stderr: Writer;

  constructor(json: boolean, stdout: Writer, stderr: Writer) {
    this.json = json;
    this.#stdout = stdout;
    this.#stderr = stderr;
  }

  /** The result of a command: `data` as JSON with --json, else whatever `human` prints. */
  result(data: unknown, human: () => void): void {
    if (this.json) this.#stdout.write(`${JSON.stringify(data, null, 2)}\n`);
    else human();
  }

  table<R>(rows: readonly R[], columns: readonly Column<R>[], empty = '(none)'): void {
    this.#stdout.write(rows.length ? renderTable(rows, columns) : `${empty}\n`);
  }

  fields(pairs: readonly [string, unknown][]): void {
    this.#stdout.write(renderFields(pairs));
  }

  line(text = ''): void {
    this.#stdout.write(`${text}\n`);
  }

  /** A note for people (stderr, so that --json output stays clean). */
  note(text: string): void {
    this.#stderr.write(`${text}\n`);
  }

  warn(text: string): void {
    this.#stderr.write(`warning: ${text}\n`);
  }
}
