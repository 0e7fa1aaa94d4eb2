/**
 * Stores a batch of prepared events inside the caller's transaction:
 *
 * 1. keep issues stored under the previous grouping rule (adopt-legacy-issues.ts), create missing issues
 *    (insert-if-absent) and read every group's issue id, in one statement;
 * 2. insert the events: a repeated (project, event_id) is skipped and counts for nothing after this step;
 * 3. in one statement (count-and-lock-issues.ts): people (insert-if-absent per issue and person hash), releases,
 *    hourly counts, and the issues locked (id order) and read;
 * 4. apply state changes (issue-transition.ts) and return the issues' updates, which the batch's last statement
 *    writes (finish-batch.ts, with the outcome counts and the inbox deletion);
 * 5. outbox rows (issue.new, issue.regressed, issue.spike) in this same transaction: returned for the batch's last
 *    statement, which inserts them all (one round trip per batch, not one per notification).
 *
 * Every count is added (`count + n`) under row locks, so concurrent batches and nodes never lose one. A batch is
 * six round trips (BEGIN, issues, events, counts and locks, the last statement, COMMIT), seven when a grouping-rule
 * change may apply (adopt-legacy-issues.ts), whatever its notifications.
 */
import type { EventDocuments } from '../../core/config.ts';
import type { Queryable } from '../../core/db/db.ts';
import type { EventKind, OutboxRow } from '../../core/outbox.ts';
import { newId } from '../../core/ids.ts';
import { hourOf } from '../outcome-counter.ts';
import {
  deleteEmptyIssues, ensureIssues, eventKey, insertEvents, releaseKey, type IssueUpdate, type LockedIssue, type ReleaseSeen,
} from './batch-statements.ts';
import { countAndLockIssues } from './count-and-lock-issues.ts';
import { issuePayload, type SpikeInfo } from './issue-notification.ts';
import { adoptLegacyIssues } from './adopt-legacy-issues.ts';
import { applyEvents } from './issue-transition.ts';
import type { EventRowsText } from './prepare-batch.ts';
import type { PreparedMeta } from './prepare-event.ts';
import type { IngestProject } from '../project-lookup.ts';

/** A prepared event with its project (timestamps in ms). */
export interface PreparedEvent extends PreparedMeta {
  project: IngestProject;
}

interface Group {
  key: string;
  events: PreparedEvent[];
  issueId: string;
  fresh: PreparedEvent[];
}

interface Notification {
  kind: EventKind;
  group: Group;
  eventId: string;
  spike?: SpikeInfo;
}

export interface StoreResult {
  stored: number;
  repeated: number;
  notifications: number;
  /** The issues' counts and state changes, for the batch's last statement (finish-batch.ts). */
  updates: IssueUpdate[];
  /** The notifications' outbox rows, in order, for the batch's last statement (finish-batch.ts). */
  outbox: OutboxRow[];
}

export interface StoreOptions {
  /** Links in the notifications' payloads. */
  publicUrl: string;
  /** The column the documents go to (SVC_EVENT_DOCUMENTS). */
  documents: EventDocuments;
}

/** `rows`: the events rows as text (prepare-batch.ts), the same events as `events`. */
export async function storeEvents(q: Queryable, events: PreparedEvent[], rows: EventRowsText, now: Date, options: StoreOptions): Promise<StoreResult> {
  const groups = groupEvents(events);

  await adoptLegacyIssues(q, events);
  const issues = await ensureIssues(q, groups.map((g) => {
    const first = g.events[0];
    return {
      id: newId(), project_id: first.project.id, fingerprint: first.fingerprint, title: first.title, culprit: first.culprit,
      level: first.level, type: first.type, first_seen: minTime(g.events).toISOString(),
    };
  }), now);
  const createdIds = new Set(issues.filter((c) => c.created).map((c) => c.id));
  const ids = new Map(issues.map((k) => [`${k.project_id}:${k.fingerprint}`, k.id]));
  for (const g of groups) {
    const id = ids.get(g.key);
    if (id === undefined) throw new Error(`issue row missing after insert-if-absent for ${g.key}`);
    g.issueId = id;
  }

  const inserted = await insertEvents(q, rows, events.length, options.documents);
  for (const g of groups) g.fresh = g.events.filter((e) => inserted.has(eventKey(e.project.id, e.eventId)));
  const active = groups.filter((g) => g.fresh.length > 0);
  await deleteEmptyIssues(q, groups.filter((g) => g.fresh.length === 0 && createdIds.has(g.issueId)).map((g) => g.issueId));
  if (active.length === 0) return { stored: 0, repeated: events.length, notifications: 0, updates: [], outbox: [] };

  const counts = await countAndLockIssues(q, { people: peopleRows(active), releases: releaseRows(active), hourly: hourlyRows(active), issueIds: active.map((g) => g.issueId) }, now);
  const { people, releaseIds, hourly } = counts;
  const locked = new Map(counts.locked.map((i) => [i.id, i]));

  const updates: IssueUpdate[] = [];
  const notifications: Notification[] = [];
  for (const g of active) {
    const issue = locked.get(g.issueId) as LockedIssue;
    const project = g.fresh[0].project;
    const transition = applyEvents(
      { state: issue.state, regressed: issue.regressed, count: issue.count, resolvedReleaseId: issue.resolved_release_id, ignoreUntilCount: issue.ignore_until_count, ignoredAtCount: issue.ignored_at_count },
      g.fresh.map((e) => (e.release !== undefined ? { eventId: e.eventId, releaseId: releaseIds.get(releaseKey(project.id, e.release)) } : { eventId: e.eventId })),
    );
    const last = g.fresh[g.fresh.length - 1];
    const withRelease = g.fresh.filter((e) => e.release !== undefined);
    const spike = spikeOf(issue, hourly.filter((h) => h.issue_id === g.issueId), project.spikeThreshold);
    updates.push({
      id: g.issueId, added: g.fresh.length, people_added: people.get(g.issueId) ?? 0,
      first_seen: minTime(g.fresh).toISOString(), last_seen: maxTime(g.fresh).toISOString(),
      first_release: withRelease[0]?.release ?? null, last_release: withRelease[withRelease.length - 1]?.release ?? null,
      last_event_id: last.eventId, state: transition.state, regressed: transition.regressed, state_changed: transition.changed,
      spike_hour: spike ? spike.hour.toISOString() : null,
    });
    if (createdIds.has(g.issueId)) notifications.push({ kind: 'issue.new', group: g, eventId: g.fresh[0].eventId });
    if (transition.regressedBy !== undefined) notifications.push({ kind: 'issue.regressed', group: g, eventId: transition.regressedBy });
    if (spike) notifications.push({ kind: 'issue.spike', group: g, eventId: last.eventId, spike });
  }

  const outbox: OutboxRow[] = [];
  for (const n of notifications) {
    const issue = locked.get(n.group.issueId) as LockedIssue;
    const update = updates.find((u) => u.id === n.group.issueId) as IssueUpdate;
    const project = n.group.fresh[0].project;
    const snapshot = {
      id: issue.id, title: issue.title, culprit: issue.culprit, level: issue.level, state: update.state,
      count: issue.count + update.added, people: issue.people + update.people_added,
    };
    outbox.push({ team_id: project.teamId, kind: n.kind, payload: issuePayload(snapshot, project, options.publicUrl, n.eventId, n.spike) });
  }
  const stored = active.reduce((s, g) => s + g.fresh.length, 0);
  return { stored, repeated: events.length - stored, notifications: notifications.length, updates, outbox };
}

function groupEvents(events: PreparedEvent[]): Group[] {
  const map = new Map<string, Group>();
  for (const e of events) {
    const key = `${e.project.id}:${e.fingerprint}`;
    let g = map.get(key);
    if (!g) map.set(key, (g = { key, events: [], issueId: '', fresh: [] }));
    g.events.push(e);
  }
  return [...map.values()].sort((a, b) => a.events[0].project.id - b.events[0].project.id || (a.events[0].fingerprint < b.events[0].fingerprint ? -1 : 1));
}

function peopleRows(groups: Group[]): Array<{ issue_id: string; person_hash: string }> {
  const seen = new Set<string>();
  const rows: Array<{ issue_id: string; person_hash: string }> = [];
  for (const g of groups) {
    for (const e of g.fresh) {
      if (e.personHash === undefined || seen.has(`${g.issueId}:${e.personHash}`)) continue;
      seen.add(`${g.issueId}:${e.personHash}`);
      rows.push({ issue_id: g.issueId, person_hash: e.personHash });
    }
  }
  return rows;
}

function releaseRows(groups: Group[]): ReleaseSeen[] {
  const map = new Map<string, { project_id: number; version: string; first: number; last: number }>();
  for (const e of groups.flatMap((g) => g.fresh)) {
    if (e.release === undefined) continue;
    const key = releaseKey(e.project.id, e.release);
    const t = e.timestamp;
    const r = map.get(key);
    if (r) {
      r.first = Math.min(r.first, t);
      r.last = Math.max(r.last, t);
    } else map.set(key, { project_id: e.project.id, version: e.release, first: t, last: t });
  }
  return [...map.values()].map((r) => ({ project_id: r.project_id, version: r.version, first_seen: new Date(r.first).toISOString(), last_seen: new Date(r.last).toISOString() }));
}

/** Hourly counts by receive time: a spike is about events arriving now, whatever time their SDK stamped. */
function hourlyRows(groups: Group[]): Array<{ issue_id: string; hour: string; count: number }> {
  const map = new Map<string, { issue_id: string; hour: string; count: number }>();
  for (const g of groups) {
    for (const e of g.fresh) {
      const hour = new Date(hourOf(e.receivedAt)).toISOString();
      const key = `${g.issueId}:${hour}`;
      const r = map.get(key);
      if (r) r.count += 1;
      else map.set(key, { issue_id: g.issueId, hour, count: 1 });
    }
  }
  return [...map.values()];
}

/** The newest hour whose count went past the threshold and was not notified yet. */
function spikeOf(issue: LockedIssue, rows: Array<{ hour: Date; count: number }>, threshold: number): SpikeInfo | undefined {
  let out: SpikeInfo | undefined;
  for (const r of rows) {
    const notified = issue.spike_notified_hour !== null && issue.spike_notified_hour.getTime() >= r.hour.getTime();
    if (r.count > threshold && !notified && (!out || r.hour > out.hour)) out = { hour: r.hour, hourCount: r.count, threshold };
  }
  return out;
}

function minTime(events: PreparedEvent[]): Date {
  return new Date(events.reduce((m, e) => Math.min(m, e.timestamp), Infinity));
}

function maxTime(events: PreparedEvent[]): Date {
  return new Date(events.reduce((m, e) => Math.max(m, e.timestamp), -Infinity));
}
