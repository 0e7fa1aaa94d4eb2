/**
 * The shared conformance suite: every pair (client style × upstream style) among the styles registered in
 * translators/styles.ts, the way one suite runs against every router implementation.
 *
 * - Requests: a canonical conversation is written in the client's style, decoded, encoded for the upstream, and
 *   decoded again; its meaning must be unchanged, except for what a hop's wire cannot carry (commented where
 *   allowed: call ids through a pre-3 Gemini, stop sequences through the responses style, with a warning).
 * - Replies: a canonical reply is written by the upstream, decoded, encoded for the client, and decoded again.
 * - Streams: every recorded upstream stream (test/fixtures/<style>/*.sse.txt) goes through the upstream decoder,
 *   the client encoder, real SSE framing, and the client decoder; text, thinking, tool calls (ids, names, parsed
 *   arguments), the stop reason, usage and errors must survive.
 * - Errors: every error type survives upstream body → client body.
 */
import { describe, expect, it } from 'vitest';
import { SseParser, writeSse } from '../../core/sse.ts';
import { collectStream } from '../../translators/collect-stream.ts';
import { STYLES, type StyleTranslator } from '../../translators/styles.ts';
import { UPSTREAM_ERROR_TYPES, type Conversation, type StreamEvent, type StyleName } from '../../translators/model.ts';
import { STATUS_FOR_ERROR_TYPE } from '../../translators/upstream-error-status.ts';
import { generativeAcceptsCallIds } from '../../translators/generative/encode-generative-request.ts';
import { listSseFixtures, readSseFixture, replay } from '../helpers/sse-fixtures.ts';
import { CANONICAL_CONVERSATIONS, CANONICAL_REPLIES } from './canonical-conversations.ts';
import { replyMeaning, requestMeaning } from './meaning.ts';

const styles = Object.values(STYLES).filter((s): s is StyleTranslator => s !== undefined);
const pairs = styles.flatMap((client) => styles.map((upstream) => [client.name, upstream.name, client, upstream] as const));
const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const clone = (c: Conversation): Conversation => ({ ...structuredClone(c), warnings: [] });
/** Styles whose request body has no model: it is in the URL path, and the route sets `conv.model` from it. */
const MODEL_IN_PATH: ReadonlySet<StyleName> = new Set(['generative']);
/** Styles with no stop-sequence parameter (the responses API has none). */
const NO_STOP: ReadonlySet<StyleName> = new Set(['responses']);
/** Gemini before 3 rejects call ids, so a generative hop then pairs results with calls by name and order. */
const keepsCallIds = (style: StyleTranslator, model: string): boolean => style.name !== 'generative' || generativeAcceptsCallIds(model);
const GEMINI_3 = 'gemini-3-flash-preview';
const hasCalls = (c: Conversation): boolean => c.turns.some((t) => t.parts.some((p) => p.type === 'tool_call'));

/** The canonical conversations, plus, where a hop drops call ids, those with calls again under a Gemini 3 name (ids kept). */
function requestCases(client: StyleTranslator, upstream: StyleTranslator): [string, Conversation][] {
  const cases = Object.entries(CANONICAL_CONVERSATIONS);
  const again = cases.filter(([, c]) => hasCalls(c) && ![client, upstream].every((s) => keepsCallIds(s, c.model)));
  return [...cases, ...again.map(([name, c]): [string, Conversation] => [`${name} (${GEMINI_3})`, { ...c, model: GEMINI_3 }])];
}

/** Decodes a request body as the gateway does: a model carried by the path is set after decoding. */
function decodeAt(style: StyleTranslator, body: unknown, pathModel: string): Conversation {
  const conv = style.decodeRequest(body);
  if (MODEL_IN_PATH.has(style.name)) conv.model = pathModel;
  return conv;
}

/** Client encoder → SSE text → client decoder, as a real client would read the stream. */
function throughClient(client: StyleTranslator, events: StreamEvent[]): StreamEvent[] {
  const enc = new client.StreamEncoder({ includeUsage: true, created: 1763770000 });
  const outs = [...events.flatMap((e) => enc.push(e)), ...enc.end()];
  const text = outs.map((o) => writeSse(client.frame(o))).join('');
  const parser = new SseParser();
  return replay(new client.StreamDecoder(), [...parser.feed(text), ...parser.end()]);
}

it('registers at least the chat and messages styles', () => {
  expect(styles.map((s) => s.name)).toEqual(expect.arrayContaining(['chat', 'messages']));
});

describe.each(pairs)('client %s × upstream %s', (_c, _u, client, upstream) => {
  const label = `${client.name} → ${upstream.name}`;

  describe('requests keep their meaning', () => {
    it.each(requestCases(client, upstream))('%s', (_name, canonical) => {
      const source = clone(canonical);
      const clientBody = json(client.encodeRequest(source));
      const decoded = decodeAt(client, clientBody, canonical.model);
      const upstreamBody = json(upstream.encodeRequest(decoded));
      const final = decodeAt(upstream, upstreamBody, decoded.model);
      const family = client.name === upstream.name ? client.name : undefined;
      // A generative hop to a pre-3 Gemini cannot carry call ids: only which result answers which call survives.
      const pairedIds = ![client, upstream].every((s) => keepsCallIds(s, canonical.model));
      const expected = requestMeaning(canonical, family, pairedIds);
      for (const [style, conv] of [[client, source], [upstream, decoded]] as const) {
        if (!NO_STOP.has(style.name) || conv.sampling.stop === undefined) continue;
        // The responses wire has no stop-sequence parameter: dropped, and the caller is warned.
        expected.stop = undefined;
        expect(conv.warnings, label).toContainEqual(expect.stringMatching(/\bstop\b/));
      }
      expect(requestMeaning(final, family, pairedIds), label).toEqual(expected);
      // Signatures never cross families.
      for (const t of final.turns) {
        for (const p of t.parts) {
          if ((p.type === 'thinking' && p.signature !== undefined) || p.type === 'redacted_thinking') expect(p.origin, label).toBe(upstream.name);
        }
      }
    });
  });

  describe('replies keep their meaning', () => {
    it.each(Object.entries(CANONICAL_REPLIES))('%s', (_name, canonical) => {
      const fromUpstream = upstream.decodeResponse(json(upstream.encodeResponse(structuredClone(canonical))));
      const final = client.decodeResponse(json(client.encodeResponse(fromUpstream)));
      expect(replyMeaning(final), label).toEqual(replyMeaning(canonical));
    });
  });

  const fixtures = listSseFixtures(upstream.name);
  describe.runIf(fixtures.length > 0)('recorded streams survive', () => {
    it.each(fixtures)('%s', (fixture) => {
      const events = replay(new upstream.StreamDecoder(), readSseFixture(upstream.name, fixture));
      const reference = collectStream(events);
      const result = collectStream(throughClient(client, events));
      if (reference.error !== undefined) {
        expect(result.complete, label).toBe(false);
        expect(result.error?.message, label).toBe(reference.error.message);
        expect(result.error?.type, label).toBe(reference.error.type);
      } else {
        expect(result.error, label).toBeUndefined();
        expect(result.complete, label).toBe(true);
      }
      const { usage: refUsage, ...refRest } = replyMeaning(reference.reply);
      const { usage, ...rest } = replyMeaning(result.reply);
      expect(rest, label).toEqual(refRest);
      if (reference.complete) {
        expect(usage, label).toEqual(refUsage);
        const refRead = reference.reply.usage.cacheReadTokens;
        if (refRead !== undefined && refRead > 0) expect(result.reply.usage.cacheReadTokens, label).toBe(refRead);
      }
    });
  });

  describe('errors keep their type', () => {
    it.each(UPSTREAM_ERROR_TYPES)('%s', (type) => {
      const wire = upstream.encodeError({ status: STATUS_FOR_ERROR_TYPE[type], type, message: `a ${type} error`, retryAfter: 9 });
      const fromUpstream = upstream.decodeError(wire.status, json(wire.body), wire.headers);
      const toClient = client.encodeError(fromUpstream);
      const final = client.decodeError(toClient.status, json(toClient.body), toClient.headers);
      expect({ type: final.type, message: final.message, retryAfter: final.retryAfter }, label).toEqual({ type, message: `a ${type} error`, retryAfter: 9 });
    });
  });
});
