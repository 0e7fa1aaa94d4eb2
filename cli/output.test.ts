import { describe, expect, it } from 'vitest';
import { Output, renderTable, type Column } from './output.ts';

interface Row { name: string; calls: number; p50: number; p95: number }
const rows: Row[] = [{ name: 'claude-sonnet-4', calls: 1200, p50: 812, p95: 2400 }, { name: 'gpt-5', calls: 3, p50: 90, p95: 150 }];
const columns: Column<Row>[] = [
  { title: 'model', value: (r) => r.name },
  { title: 'calls', align: 'right', value: (r) => r.calls },
  { title: 'p50 ms', align: 'right', dropOrder: 1, value: (r) => r.p50 },
  { title: 'p95 ms', align: 'right', dropOrder: 2, value: (r) => r.p95 },
];

function capture(columnsWide?: number) {
  const out = { text: '', columns: columnsWide, write(t: string) { this.text += t; } };
  const err = { text: '', write(t: string) { this.text += t; } };
  return { out, err, output: new Output(false, out, err) };
}

describe('tables that fit the terminal', () => {
  it('shows every column when there is room, or when the output is not a terminal', () => {
    const full = renderTable(rows, columns).text;
    expect(full.split('\n')[0]).toBe('MODEL            CALLS  P50 MS  P95 MS');
    for (const wide of [undefined, 200]) {
      const { out, err, output } = capture(wide);
      output.table(rows, columns);
      expect(out.text).toBe(full);
      expect(err.text).toBe('');
    }
  });

  it('leaves out droppable columns, highest dropOrder first, until the lines fit, and says which', () => {
    const { out, err, output } = capture(32);
    output.table(rows, columns);
    expect(out.text.split('\n')[0]).toBe('MODEL            CALLS  P50 MS');
    expect(Math.max(...out.text.split('\n').map((l) => l.length))).toBeLessThanOrEqual(32);
    expect(err.text).toBe('Left out to fit the terminal: p95 ms (a wider terminal or --json shows every column).\n');
  });

  it('never leaves out a column without a dropOrder, even when the table still does not fit', () => {
    const { out, err } = capture(10);
    new Output(false, out, err).table(rows, columns);
    expect(out.text.split('\n')[1]).toBe('claude-sonnet-4   1200');
    expect(err.text).toContain('p95 ms, p50 ms');
  });
});
