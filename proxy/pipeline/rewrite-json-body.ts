/**
 * Byte-preserving edits of a same-style request body: the gateway may change the `model` (an alias was resolved;
 * also the one nested in a generative countTokens body) and add a top-level field (chat streams need `stream_options.include_usage`), and nothing else; every other byte
 * (key order, spacing, number spelling, unknown fields) reaches the upstream as the client wrote it.
 */

/** Span [start, end) of the value of top-level `key` in a JSON object text, or undefined. */
export function topLevelValueSpan(text: string, key: string): [number, number] | undefined {
  let depth = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(text, i);
      if (depth === 1 && text.slice(i + 1, end - 1) === key) {
        let j = end;
        while (j < n && isSpace(text.charCodeAt(j))) j++;
        if (text.charCodeAt(j) === 58 /* : */) {
          j++;
          while (j < n && isSpace(text.charCodeAt(j))) j++;
          return [j, valueEnd(text, j)];
        }
      }
      i = end;
      continue;
    }
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) depth--;
    i++;
  }
  return undefined;
}

/** Replaces the value of top-level `key` with `value` (serialised as JSON); the text is unchanged when absent. */
export function replaceTopLevelValue(text: string, key: string, value: unknown): string {
  const span = topLevelValueSpan(text, key);
  if (span === undefined) return text;
  return text.slice(0, span[0]) + JSON.stringify(value) + text.slice(span[1]);
}

/** Replaces the value of `inner` inside the top-level object `outer` (`{"outer":{"inner":…}}`); unchanged when absent. */
export function replaceNestedValue(text: string, outer: string, inner: string, value: unknown): string {
  const span = topLevelValueSpan(text, outer);
  if (span === undefined || text.charCodeAt(span[0]) !== 123 /* { */) return text;
  return text.slice(0, span[0]) + replaceTopLevelValue(text.slice(span[0], span[1]), inner, value) + text.slice(span[1]);
}

/** Adds `"key": value` as the first member of the top-level object. */
export function addTopLevelField(text: string, key: string, value: unknown): string {
  const open = text.indexOf('{');
  if (open < 0) return text;
  const rest = text.slice(open + 1);
  const empty = rest.trimStart().startsWith('}');
  return `${text.slice(0, open + 1)}${JSON.stringify(key)}:${JSON.stringify(value)}${empty ? '' : ','}${rest}`;
}

/** addTopLevelField on bytes: `member` (a `"key":value` text) becomes the first member of the object. */
export function addTopLevelBytes(raw: Buffer, member: Buffer): Buffer {
  const open = raw.indexOf(123 /* { */);
  if (open < 0) return raw;
  let j = open + 1;
  while (j < raw.length && isSpace(raw[j])) j++;
  const empty = raw[j] === 125; /* } */
  return Buffer.concat([raw.subarray(0, open + 1), member, ...(empty ? [] : [COMMA]), raw.subarray(open + 1)]);
}

const COMMA = Buffer.from(',');

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Index just past the closing quote of the string starting at `i`. */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === 92 /* \ */) j += 2;
    else if (c === 34) return j + 1;
    else j++;
  }
  return j;
}

/** Index just past the JSON value starting at `i`. */
export function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 34) return stringEnd(text, i);
  if (c === 123 || c === 91) {
    let depth = 0;
    let j = i;
    while (j < text.length) {
      const d = text.charCodeAt(j);
      if (d === 34) {
        j = stringEnd(text, j);
        continue;
      }
      if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
    return j;
  }
  let j = i;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === 44 || d === 125 || d === 93 || isSpace(d)) break;
    j++;
  }
  return j;
}
