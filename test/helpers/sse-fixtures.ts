/**
 * Recorded-shape SSE streams under test/fixtures/<style>/*.sse.txt, parsed with the production SSE parser, and a
 * replay helper that feeds them through a stream decoder (push every event, then end()).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SseParser, type SseEvent } from '../../core/sse.ts';
import type { SseMessage, StreamEvent } from '../../translators/model.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function listSseFixtures(style: string): string[] {
  const dir = `${FIXTURES}${style}`;
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.sse.txt')).sort();
}

export function readSseFixture(style: string, name: string): SseEvent[] {
  const parser = new SseParser();
  // Feed in small uneven pieces, as a network would deliver them.
  const bytes = readFileSync(`${FIXTURES}${style}/${name}`);
  const out: SseEvent[] = [];
  for (let i = 0; i < bytes.length; i += 97) out.push(...parser.feed(bytes.subarray(i, i + 97)));
  out.push(...parser.end());
  return out;
}

export function replay(decoder: { push(ev: SseMessage): StreamEvent[]; end(): StreamEvent[] }, events: SseMessage[]): StreamEvent[] {
  return [...events.flatMap((ev) => decoder.push(ev)), ...decoder.end()];
}
