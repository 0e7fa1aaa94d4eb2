/**
 * A first-in first-out queue whose shift is O(1) amortised. `Array#shift` moves every element once the array's
 * backing store is large (V8 trims in place only small ones): on a queue of tens of thousands of entries, shifting
 * a few per event-loop turn cost a hot path more than all its other work.
 */
export class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, left in place. */
  peek(): T | undefined {
    return this.#head < this.#items.length ? this.#items[this.#head] : undefined;
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined as T; // not kept alive by the spent slot
    // Compacted once the spent slots are half the array: each item is moved at most once on average.
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    } else if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    }
    return item;
  }

  /** Every item, oldest first; the queue is left empty. */
  takeAll(): T[] {
    const all = this.#items.slice(this.#head);
    this.#items = [];
    this.#head = 0;
    return all;
  }
}
