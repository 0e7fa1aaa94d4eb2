/**
 * The `model` label's values: a closed vocabulary, so that no client can create series by naming models.
 *
 * A name is kept when it is configured on this instance (an alias name, or a model an account lists by its exact
 * name; the gateway reports them when it loads its routing data) or known (a model of the list-price table, by
 * exact id, or a dated variant reported under its table id: `gpt-4o-2024-11-20` → `gpt-4o`). Every other name is
 * `other`. Answers are memoised (bounded) so the hot path does one Map lookup.
 */
import { listPriceOf } from '../ai/price-of.ts';

export const OTHER = 'other';
const MEMO_MAX = 5_000;

export class ModelLabels {
  #configured = new Map<string, ReadonlySet<string>>();
  #memo = new Map<string, string>();

  /** Replaces the names one source configures (e.g. 'aliases', 'accounts'). Cheap to call on every reload. */
  configure(source: string, names: Iterable<string>): void {
    const next = new Set<string>();
    for (const n of names) if (!n.includes('*')) next.add(n);
    const prev = this.#configured.get(source);
    if (prev && prev.size === next.size && [...next].every((n) => prev.has(n))) return;
    this.#configured.set(source, next);
    this.#memo.clear();
  }

  label(model: string): string {
    let v = this.#memo.get(model);
    if (v === undefined) {
      v = this.#resolve(model);
      if (this.#memo.size >= MEMO_MAX) this.#memo.clear();
      this.#memo.set(model, v);
    }
    return v;
  }

  #resolve(model: string): string {
    for (const names of this.#configured.values()) if (names.has(model)) return model;
    const listed = listPriceOf(model);
    // Family entries are patterns (`claude-opus-4*`): their id is still one fixed string, so it is a bounded value.
    return listed ? listed.matched : OTHER;
  }
}
