// JSON-array framing of `:streamGenerateContent` without `alt=sse`: the body is one JSON array whose elements
// arrive one by one, `[{…},\r\n{…}]` (reference §C). Chunks come from GenerativeStreamEncoder.

export const GENERATIVE_JSON_ARRAY = { start: '[', separator: ',\r\n', end: ']' } as const;

/** Frames chunks as the pieces of one JSON array: `write()` each chunk, then `end()` once. */
export class GenerativeJsonArrayWriter {
  #count = 0;

  write(chunk: unknown): string {
    const prefix = this.#count === 0 ? GENERATIVE_JSON_ARRAY.start : GENERATIVE_JSON_ARRAY.separator;
    this.#count++;
    return prefix + JSON.stringify(chunk);
  }

  /** Closes the array (an empty stream gives `[]`). */
  end(): string {
    return this.#count === 0 ? GENERATIVE_JSON_ARRAY.start + GENERATIVE_JSON_ARRAY.end : GENERATIVE_JSON_ARRAY.end;
  }
}
