/**
 * What the CLI prints: tables and `label: value` lines for people, or with --json exactly one JSON document on
 * stdout for scripts. Notes and warnings go to stderr so that stdout stays parseable.
 */

export interface Column<R> {
  title: string;
  value: (row: R) => unknown;
  /** Numbers read best right-aligned, so that their digits line up. */
  align?: 'right';
  /**
   * A column that may be left out when the table is wider than the terminal: the highest number goes first. Columns
   * without one are always shown.
   */
  dropOrder?: number;
}

export interface Writer {
  write(text: string): unknown;
  /** The terminal's width, when the writer is one (process.stdout on a TTY); tables then fit it. */
  columns?: number;
}

/** null/undefined → "-", RFC 3339 times without milliseconds, objects as compact JSON. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined || v === '') return '-';
  if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v)) return v.replace(/\.\d+Z$/, 'Z');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** A number for a table cell: rounded, with thousands separators (12,345). */
export function thousands(v: number): string {
  return Math.round(v).toLocaleString('en-US');
}

const GAP = 2;

/**
 * The table as text. With `maxWidth`, droppable columns (Column.dropOrder) are left out, highest first, until its
 * lines fit or none is left to drop; `dropped` names them.
 */
export function renderTable<R>(rows: readonly R[], columns: readonly Column<R>[], maxWidth = Infinity): { text: string; dropped: string[] } {
  const cells = rows.map((r) => columns.map((c) => formatValue(c.value(r)).replace(/\s+/g, ' ')));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((row) => row[i].length)));
  const shown = columns.map((_, i) => i);
  const width = () => shown.reduce((sum, i) => sum + widths[i], 0) + GAP * (shown.length - 1);
  const droppable = shown.filter((i) => columns[i].dropOrder !== undefined).sort((a, b) => columns[b].dropOrder! - columns[a].dropOrder!);
  const dropped: string[] = [];
  for (const i of droppable) {
    if (width() <= maxWidth) break;
    shown.splice(shown.indexOf(i), 1);
    dropped.push(columns[i].title);
  }
  const last = shown[shown.length - 1];
  const pad = (v: string, i: number) => (columns[i].align === 'right' ? v.padStart(widths[i]) : i === last ? v : v.padEnd(widths[i]));
  const line = (vals: string[]) => shown.map((i) => pad(vals[i], i)).join(' '.repeat(GAP)).trimEnd();
  return { text: [line(columns.map((c) => c.title.toUpperCase())), ...cells.map(line)].join('\n') + '\n', dropped };
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

  /** Rows as a table that fits the terminal (see Column.dropOrder), saying on stderr which columns it left out. */
  table<R>(rows: readonly R[], columns: readonly Column<R>[], empty = '(none)'): void {
    if (!rows.length) {
      this.#stdout.write(`${empty}\n`);
      return;
    }
    const { text, dropped } = renderTable(rows, columns, this.#stdout.columns || Infinity);
    this.#stdout.write(text);
    if (dropped.length) this.note(`Left out to fit the terminal: ${dropped.join(', ')} (a wider terminal or --json shows every column).`);
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
