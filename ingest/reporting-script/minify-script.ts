/**
 * A small JavaScript minifier for our own browser script (svc-errors.js), run once at start: it drops comments
 * and whitespace and keeps string, template and regular-expression literals byte for byte. It renames nothing.
 *
 * It relies on the source's discipline (stated in svc-errors.js): statements end with semicolons, so line breaks
 * carry no meaning, and no `+ +`/`- -` pairs (a space is kept between two identifier characters, and between two
 * `+` or two `-`, and dropped everywhere else). A `/` starts a regular expression when the previous significant
 * character cannot end an expression, as in the ECMAScript grammar for the cases the script uses.
 */

const IDENT = /[A-Za-z0-9_$]/;
/** After these a `/` begins a regular expression, not a division. */
const REGEX_AFTER = new Set(['', '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^']);

export function minifyScript(src: string): string {
  let out = '';
  let i = 0;
  let pendingSpace = false;
  const last = () => out.slice(-1);
  const emit = (s: string) => {
    if (pendingSpace) {
      const a = last();
      const b = s[0];
      if ((IDENT.test(a) && IDENT.test(b)) || (a === b && (a === '+' || a === '-'))) out += ' ';
      pendingSpace = false;
    }
    out += s;
  };
  while (i < src.length) {
    const c = src[i];
    const next = src[i + 1];
    if (c === '/' && next === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      pendingSpace = true;
    } else if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) throw new Error('unterminated comment in script source');
      i = end + 2;
      pendingSpace = true;
    } else if (/\s/.test(c)) {
      i++;
      pendingSpace = true;
    } else if (c === '"' || c === "'" || c === '`') {
      const end = literalEnd(src, i, c);
      emit(src.slice(i, end));
      i = end;
    } else if (c === '/' && REGEX_AFTER.has(last())) {
      const end = regexEnd(src, i);
      emit(src.slice(i, end));
      i = end;
    } else {
      emit(c);
      i++;
    }
  }
  return out;
}

/** The index after a string or template literal starting at `start` (no nested `${}` with quotes inside). */
function literalEnd(src: string, start: number, quote: string): number {
  for (let i = start + 1; i < src.length; i++) {
    if (src[i] === '\\') i++;
    else if (src[i] === quote) return i + 1;
    else if (src[i] === '\n' && quote !== '`') break;
  }
  throw new Error(`unterminated string literal at ${start} in script source`);
}

/** The index after a regular expression literal (with its flags) starting at `start`. */
function regexEnd(src: string, start: number): number {
  let inClass = false;
  for (let i = start + 1; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') i++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) {
      let j = i + 1;
      while (j < src.length && /[a-z]/.test(src[j])) j++;
      return j;
    } else if (c === '\n') break;
  }
  throw new Error(`unterminated regular expression at ${start} in script source`);
}
