/**
 * Rows passed to Postgres as one JSON parameter (`jsonb_to_recordset($1::jsonb)`), so that a batch of any size
 * is one statement with one parameter on both pg and the embedded database.
 *
 * Postgres' jsonb refuses two things JavaScript strings may hold: the NUL character (`\u0000`) and lone UTF-16
 * surrogates (`\ud800` without its pair). Either would fail the whole batch, so such strings (values and keys)
 * are repaired: NUL becomes U+FFFD and lone surrogates are replaced by String#toWellFormed. The check runs on the
 * serialised text first; the slow repair walk runs only when that text shows a suspect escape.
 * @see https://www.postgresql.org/docs/current/datatype-json.html
 */

const SUSPECT = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;

export function jsonParam(rows: readonly unknown[]): string {
  return jsonValue(rows);
}

/**
 * The rows of a JSON parameter as a subquery, `LIMIT`ed to their count (a parameter too): the planner assumes 100
 * rows from jsonb_to_recordset, and against that it found scanning a table of up to some 20,000 rows (the issues)
 * cheaper than an index lookup per row, when a batch has a handful. The LIMIT tells it how many there are.
 * `param` and `count` are placeholders ($n); `columns` the record's column definitions.
 */
export function recordsetOf(param: string, columns: string, count: string): string {
  return `(SELECT * FROM jsonb_to_recordset(${param}::jsonb) AS r(${columns}) LIMIT ${count}::int)`;
}

/** One value as JSON that jsonb accepts (rows serialised one by one die young; a list of them does not). */
export function jsonValue(value: unknown): string {
  const text = JSON.stringify(value);
  // JSON.stringify writes both suspects as a lowercase `\u` escape, which most documents never hold: a plain scan first.
  return text.includes('\\u') && SUSPECT.test(text) ? JSON.stringify(repair(value)) : text;
}

/** A deep copy in which every string is safe for jsonb. */
export function repair(value: unknown): unknown {
  if (typeof value === 'string') return repairString(value);
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Date) return value;
  if (Array.isArray(value)) return value.map(repair);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, repairString(k), { value: repair(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function repairString(s: string): string {
  const noNul = s.includes('\u0000') ? s.replaceAll('\u0000', '\ufffd') : s;
  return noNul.isWellFormed() ? noNul : noNul.toWellFormed();
}
