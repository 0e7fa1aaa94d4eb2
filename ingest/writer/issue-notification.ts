/**
 * The outbox payload of issue.new, issue.regressed and issue.spike (delivered to the team's webhooks):
 *
 * ```json
 * {"issue_id":"…","title":"…","culprit":"…","level":"error","state":"unresolved",
 *  "project":{"id":12,"name":"Web","slug":"web"},"count":31,"people":4,"url":"…/api/v1/issues/…","event_id":"…",
 *  "hour":"…","hour_count":101,"threshold":100}          (hour, hour_count and threshold for issue.spike only)
 * ```
 */
import type { IngestProject } from '../project-lookup.ts';

export interface IssueSnapshot {
  id: string;
  title: string;
  culprit: string;
  level: string;
  state: string;
  count: number;
  people: number;
}

export interface SpikeInfo {
  hour: Date;
  hourCount: number;
  threshold: number;
}

export function issuePayload(issue: IssueSnapshot, project: IngestProject, publicUrl: string, eventId: string, spike?: SpikeInfo): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    issue_id: issue.id,
    title: issue.title,
    culprit: issue.culprit,
    level: issue.level,
    state: issue.state,
    project: { id: project.id, name: project.name, slug: project.slug },
    count: issue.count,
    people: issue.people,
    url: `${publicUrl}/api/v1/issues/${issue.id}`,
    event_id: eventId,
  };
  if (spike) {
    payload.hour = spike.hour.toISOString();
    payload.hour_count = spike.hourCount;
    payload.threshold = spike.threshold;
  }
  return payload;
}
