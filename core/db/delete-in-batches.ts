/**
 * Retention deletes: one statement deletes at most `batch` rows (a short transaction that holds its locks
 * briefly), repeated until a statement deletes fewer. Between two statements the event loop lets other queries in.
 *
 * Pick the rows first and delete them by row address or primary key, `WHERE ctid = ANY(ARRAY(SELECT ctid …
 * LIMIT n))`: the `WHERE (a, b) IN (SELECT … LIMIT n)` form lets the planner hash-join the batch against a
 * sequential scan of the whole table, once per batch (measured: 76 ms against 26 ms on 300,000 rows, and growing
 * with the table).
 */
export async function deleteInBatches(run: () => Promise<{ rowCount: number }>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await run();
    total += rowCount;
    if (rowCount < batch) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
