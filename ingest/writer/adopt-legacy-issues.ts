/**
 * Keeps issues in their groups across a change of the grouping rule (fingerprint-event.ts, "Grouping versions").
 *
 * An event whose fingerprint under the current rule names no issue, but whose fingerprint under the previous rule
 * names one, belongs to that issue: the issue is re-keyed to the current fingerprint, once, inside the batch's
 * transaction, and from then on is found like any other. Stored issues are never regrouped in bulk.
 *
 * When two old issues map to one new fingerprint (a message once logged at two levels), the first one seen takes
 * it; the other keeps its events and stops receiving new ones, which is what the new rule asks.
 */
import type { Queryable } from '../../core/db/db.ts';
import { recordsetOf } from './json-param.ts';

interface LegacyCandidate {
  project: { id: number };
  fingerprint: string;
  legacyFingerprint?: string;
}

export async function adoptLegacyIssues(q: Queryable, events: LegacyCandidate[]): Promise<void> {
  // One legacy fingerprint per new one: two old issues re-keyed to the same fingerprint in one statement would collide.
  const byNew = new Map<string, { project_id: number; fingerprint: string; legacy: string }>();
  for (const e of events) {
    if (e.legacyFingerprint === undefined) continue;
    const key = `${e.project.id}:${e.fingerprint}`;
    if (!byNew.has(key)) byNew.set(key, { project_id: e.project.id, fingerprint: e.fingerprint, legacy: e.legacyFingerprint });
  }
  if (byNew.size === 0) return;
  await q.query(
    `UPDATE issues i SET fingerprint = x.fingerprint
     FROM ${recordsetOf('$1', 'project_id bigint, fingerprint text, legacy text', '$2')} AS x
     WHERE i.project_id = x.project_id AND i.fingerprint = x.legacy
       AND NOT EXISTS (SELECT 1 FROM issues j WHERE j.project_id = x.project_id AND j.fingerprint = x.fingerprint)`,
    [JSON.stringify([...byNew.values()]), byNew.size],
  );
}
