/**
 * The kept body of one call (key option log_bodies = 1d | 7d | 30d): the request as received and the answer as the
 * client got it. A stream is kept as the assembled answer, i.e. the reply the client would have got without
 * streaming, in its own style (translators' encodeResponse of the collected stream). Each side is cut at 1 MiB of
 * text, and the row says so.
 */
import { newId } from '../../core/ids.ts';
import { getStyle } from '../../translators/styles.ts';
import type { UsageRecord } from '../metering/usage-record.ts';
import type { CallBodyRow } from './call-body-writer.ts';
import type { CallAnswer } from './limit-guard.ts';

export const BODY_MAX_CHARS = 1024 * 1024;
const DAY_MS = 86_400_000;
export const RETENTION_DAYS: Readonly<Record<string, number>> = { '1d': 1, '7d': 7, '30d': 30 };

function answerText(record: UsageRecord, answer: CallAnswer | undefined): string | null {
  if (!answer) return null;
  if ('body' in answer) return typeof answer.body === 'string' ? answer.body : answer.body.toString('utf8');
  try {
    return JSON.stringify(getStyle(record.clientStyle).encodeResponse(answer.stream.reply));
  } catch {
    return JSON.stringify(answer.stream.reply);
  }
}

export function callBodyOf(record: UsageRecord, raw: Buffer, answer: CallAnswer | undefined, logBodies: string): CallBodyRow | undefined {
  const days = RETENTION_DAYS[logBodies];
  if (days === undefined) return undefined;
  let request = raw.toString('utf8');
  let response = answerText(record, answer);
  let truncated = false;
  if (request.length > BODY_MAX_CHARS) {
    request = request.slice(0, BODY_MAX_CHARS);
    truncated = true;
  }
  if (response !== null && response.length > BODY_MAX_CHARS) {
    response = response.slice(0, BODY_MAX_CHARS);
    truncated = true;
  }
  return {
    id: newId('call_'),
    keyId: record.keyId,
    teamId: record.teamId,
    model: record.model,
    servedModel: record.servedModel,
    clientStyle: record.clientStyle,
    stream: record.stream,
    status: record.status,
    errorCode: record.errorCode,
    request,
    response,
    truncated,
    createdAt: record.at,
    expiresAt: new Date(record.at.getTime() + days * DAY_MS),
  };
}
