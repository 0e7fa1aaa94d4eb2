/**
 * Counters and histograms whose label children are resolved once and then updated with plain arithmetic.
 *
 * prom-client's own `labels(...)` children hash their label values again on every `inc` and `observe` (about
 * 0.2 µs each, several per gateway call); these cells are plain objects the caller keeps, so the hot path is a
 * field increment. The families implement the part of prom-client's metric interface its Registry reads
 * (`name`, `help`, `type`, `get()`), so they are scraped with the prom-client metrics beside them.
 */

/** What prom-client's Registry reads from a metric when it renders the text format. */
export interface ScrapedFamily {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: { metricName?: string; labels: Record<string, string>; value: number }[];
  aggregator: 'sum';
}

export interface CounterCell {
  value: number;
}

export interface HistogramCell {
  /** Count per bucket (not cumulative): counts[i] holds values ≤ bounds[i] and > bounds[i-1]; the last is +Inf. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
  observe(value: number): void;
}

type Labels = Record<string, string>;

abstract class Family<Cell> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly aggregator = 'sum' as const;
  #cells = new Map<string, { labels: Labels; cell: Cell }>();

  constructor(name: string, help: string, labelNames: readonly string[]) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  /** The cell of these label values (in labelNames' order), made on first use. Keep it: this lookup is not free. */
  cell(...values: string[]): Cell {
    const key = values.join('\u0000');
    let entry = this.#cells.get(key);
    if (entry === undefined) {
      const labels: Labels = {};
      this.labelNames.forEach((n, i) => (labels[n] = values[i] ?? ''));
      entry = { labels, cell: this.make() };
      this.#cells.set(key, entry);
    }
    return entry.cell;
  }

  protected abstract make(): Cell;

  protected entries(): Iterable<{ labels: Labels; cell: Cell }> {
    return this.#cells.values();
  }

  /** Series, for tests and gauges computed from them. */
  get size(): number {
    return this.#cells.size;
  }
}

export class CounterFamily extends Family<CounterCell> {
  readonly type = 'counter' as const;

  protected make(): CounterCell {
    return { value: 0 };
  }

  async get(): Promise<ScrapedFamily> {
    const values: ScrapedFamily['values'] = [];
    for (const { labels, cell } of this.entries()) values.push({ labels, value: cell.value });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

class Histogram implements HistogramCell {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  readonly #bounds: readonly number[];

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const b = this.#bounds;
    let i = 0;
    while (i < b.length && value > b[i]) i++;
    this.counts[i] += 1;
    this.sum += value;
    this.count += 1;
  }
}

export class HistogramFamily extends Family<HistogramCell> {
  readonly type = 'histogram' as const;
  readonly bounds: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[], bounds: readonly number[]) {
    super(name, help, labelNames);
    this.bounds = bounds;
  }

  protected make(): HistogramCell {
    return new Histogram(this.bounds);
  }

  async get(): Promise<ScrapedFamily> {
    const values: ScrapedFamily['values'] = [];
    for (const { labels, cell } of this.entries()) {
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += cell.counts[i];
        const le = i < this.bounds.length ? String(this.bounds[i]) : '+Inf';
        values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le }, value: cumulative });
      }
      values.push({ metricName: `${this.name}_sum`, labels, value: cell.sum });
      values.push({ metricName: `${this.name}_count`, labels, value: cell.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
