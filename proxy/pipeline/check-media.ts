/**
 * Images and documents must be given by an http(s) URL or as inline base64 (a data URL, or a base64 source), or
 * by a provider file id (issue 3, bad input). Anything else (a relative path, `ftp:`, `file:`, a bare string) is
 * refused with 400 before any upstream call, rather than sent to an upstream of another style that would reject
 * it in its own words or, worse, try to fetch it.
 */
import { svcError } from '../../core/errors.ts';
import type { Conversation, MediaSource, Part } from '../../translators/model.ts';

const HTTP_URL = /^https?:\/\/[^\s/]+/i;

function checkSource(s: MediaSource, where: string): void {
  if (s.kind === 'url' && !HTTP_URL.test(s.url)) {
    throw svcError('invalid_request', `${where} must be given by an http(s) URL or as base64 data; "${s.url.slice(0, 60)}" is neither.`, { field: where });
  }
  if (s.kind === 'base64' && s.data === '') throw svcError('invalid_request', `${where} has empty base64 data.`, { field: where });
}

function checkPart(p: Part, where: string): void {
  if (p.type === 'image' || p.type === 'document' || p.type === 'audio') checkSource(p.source, `${where} (${p.type})`);
  else if (p.type === 'tool_result') p.content.forEach((c, i) => checkPart(c, `${where}.content[${i}]`));
}

export function checkMedia(conv: Conversation): void {
  conv.turns.forEach((t, i) => t.parts.forEach((p, j) => checkPart(p, `turn ${i + 1}, part ${j + 1}`)));
}
