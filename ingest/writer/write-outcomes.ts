/** Adds the aggregated outcome counts to ingest_outcomes (`quantity = quantity + n`, rows in key order). */
import type { Queryable } from '../../core/db/db.ts';
import type { OutcomeRow } from '../outcome-counter.ts';
import { jsonParam } from './json-param.ts';

export async function writeOutcomes(q: Queryable, rows: readonly OutcomeRow[]): Promise<void> {
  if (rows.length === 0) return;
  const param = rows.map((r) => ({
    project_id: r.projectId,
    hour: new Date(r.hour).toISOString(),
    outcome: r.outcome,
    reason: r.reason,
    category: r.category,
    quantity: r.quantity,
  }));
  await q.query(
    `INSERT INTO ingest_outcomes (project_id, hour, outcome, reason, category, quantity)
     SELECT x.project_id, x.hour, x.outcome, x.reason, x.category, x.quantity
     FROM jsonb_to_recordset($1::jsonb) AS x(project_id bigint, hour timestamptz, outcome text, reason text, category text, quantity bigint)
     WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = x.project_id)
     ORDER BY x.project_id, x.hour, x.outcome, x.reason, x.category
     ON CONFLICT (project_id, hour, outcome, reason, category) DO UPDATE SET quantity = ingest_outcomes.quantity + EXCLUDED.quantity`,
    [jsonParam(param)],
  );
}
