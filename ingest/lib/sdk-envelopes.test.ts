/**
 * What the real JavaScript SDK sends, through the whole library pipeline: the SDK runs in-process with a
 * transport that keeps the serialised bytes (nothing leaves the process), then the bytes go through
 * decompression, the envelope parser, client-key extraction, classification, scrubbing, normalisation and
 * grouping, as the endpoint and the writer will chain them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import zlib from 'node:zlib';
import * as Sentry from '@sentry/node';
import { createTransport } from '@sentry/core';
import { extractClientKey } from './client-auth.ts';
import { decompressBody } from './decompress-body.ts';
import { fingerprintEvent } from './fingerprint-event.ts';
import { classifyItems, outcomeLabel } from './item-outcome.ts';
import { normalizeEvent } from './normalize-event.ts';
import { parseEnvelope } from './parse-envelope.ts';
import { parseEventPayload } from './parse-event-payload.ts';
import { scrubEvent } from './scrub-event.ts';

const PK = 'e12d836b15bb49d7bbf99e64295d995b';
const sent: Array<{ url: string; body: Buffer }> = [];

beforeAll(() => {
  Sentry.init({
    dsn: `http://${PK}@127.0.0.1:9/42`,
    release: 'shop@2.1.0',
    attachStacktrace: true,
    transport: (options) => createTransport(options, async (req) => {
      sent.push({ url: options.url, body: Buffer.from(req.body) });
      return { statusCode: 200, headers: { 'x-sentry-rate-limits': null, 'retry-after': null } };
    }),
  });
});

afterAll(async () => {
  await Sentry.close(1000);
});

function loadUser(id: number): never {
  throw new TypeError(`User ${id} not found`);
}

async function capture(fn: () => void): Promise<Array<{ url: string; body: Buffer }>> {
  const before = sent.length;
  fn();
  await Sentry.flush(2000);
  return sent.slice(before);
}

/** Endpoint + writer, as they will chain the library. */
async function ingest(req: { url: string; body: Buffer }, encoding?: string) {
  const body = encoding === 'gzip' ? zlib.gzipSync(req.body) : req.body;
  const envelope = parseEnvelope(await decompressBody(body, encoding, 20 * 1024 * 1024));
  const query = Object.fromEntries(new URL(req.url).searchParams);
  const key = extractClientKey({ headers: {}, query, envelopeDsn: envelope.headers.dsn });
  const items = classifyItems(envelope.items);
  const kept = items.find((i) => i.keep);
  const event = kept
    ? normalizeEvent(scrubEvent(parseEventPayload(kept.item.payload), []), {
      receivedAt: new Date(), retentionDays: 90, envelopeEventId: envelope.headers.event_id, sentAt: envelope.headers.sent_at,
    })
    : undefined;
  return { envelope, key, items, event, group: event ? fingerprintEvent(event) : undefined };
}

describe('envelopes from @sentry/node', () => {
  it('ingests captureException: key from the query, event normalised, grouped by type and in-app frames', async () => {
    const reqs = await capture(() => {
      try {
        loadUser(42);
      } catch (e) {
        Sentry.captureException(e);
      }
    });
    const results = await Promise.all(reqs.map((r) => ingest(r)));
    const withEvent = results.find((r) => r.event);
    expect(withEvent).toBeDefined();
    const { key, event, group, envelope } = withEvent!;
    expect(key.publicKey).toBe(PK);
    expect(key.sdk).toMatch(/^sentry\.javascript\.node\//);
    expect(event!.eventId).toBe(envelope.headers.event_id);
    expect(event).toMatchObject({ type: 'error', level: 'error', platform: 'node', release: 'shop@2.1.0', title: 'TypeError: User 42 not found' });
    expect(event!.culprit).toMatch(/^loadUser\(.+\)$/); // Sentry's form for Node: function(location)
    expect(group!.components[0]).toBe('type:TypeError');
    expect(group!.components.some((c) => c.endsWith('|loadUser'))).toBe(true);
    expect(group!.components.length).toBeLessThanOrEqual(6); // the type and at most 5 frames
  });

  it('groups the same error raised with other ids together, also gzip-compressed', async () => {
    const a = await capture(() => {
      try { loadUser(1); } catch (e) { Sentry.captureException(e); }
    });
    const b = await capture(() => {
      try { loadUser(99999); } catch (e) { Sentry.captureException(e); }
    });
    const ga = (await Promise.all(a.map((r) => ingest(r)))).find((r) => r.group)!.group!;
    const gb = (await Promise.all(b.map((r) => ingest(r, 'gzip')))).find((r) => r.group)!.group!;
    expect(ga.hash).toBe(gb.hash);
  });

  it('treats captureMessage (synthetic exception) as a message event grouped by its parameterised text', async () => {
    const a = await capture(() => Sentry.captureMessage('Cart 17 is empty', 'warning'));
    const b = await capture(() => Sentry.captureMessage('Cart 4242 is empty', 'warning'));
    const ra = (await Promise.all(a.map((r) => ingest(r)))).find((r) => r.event)!;
    const rb = (await Promise.all(b.map((r) => ingest(r)))).find((r) => r.event)!;
    expect(ra.event).toMatchObject({ type: 'default', level: 'warning', message: 'Cart 17 is empty', title: 'Cart 17 is empty' });
    expect(ra.group!.components).toEqual(['type:default', 'message:Cart <num> is empty']);
    expect(ra.group!.hash).toBe(rb.group!.hash);
  });

  it('accepts and drops session envelopes', async () => {
    const all = await Promise.all(sent.map((r) => ingest(r)));
    const sessionItems = all.flatMap((r) => r.items).filter((i) => i.type === 'session' || i.type === 'sessions');
    expect(sessionItems.length).toBeGreaterThan(0);
    for (const i of sessionItems) expect([i.keep, outcomeLabel(i.outcome)]).toEqual([false, 'filtered']);
    // Every item of every envelope got exactly one outcome.
    for (const r of all) expect(r.items).toHaveLength(r.envelope.items.length);
  });
});
