#!/usr/bin/env node
/**
 * The null endpoint of the ingest benchmark: the same HTTP stack and the same library calls as the fast path's
 * reading (decompress, parse the envelope, parse the event JSON), then the acknowledgement, and nothing else:
 * no key lookup, no limits, no queue, no database. Its rate is the machine's speed that day.
 *   node bench/ingest/null-endpoint.ts <port>     → prints "listening <port>"
 */
import Fastify from 'fastify';
import { decompressBody } from '../../ingest/lib/decompress-body.ts';
import { ENVELOPE_MAX_BYTES } from '../../ingest/lib/ingest-limits.ts';
import { parseEnvelope } from '../../ingest/lib/parse-envelope.ts';
import { parseEventPayload } from '../../ingest/lib/parse-event-payload.ts';

const app = Fastify({ logger: false, bodyLimit: ENVELOPE_MAX_BYTES });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
app.post('/api/:project/envelope/', async (req) => {
  const encoding = req.headers['content-encoding'];
  const body = await decompressBody(req.body as Buffer, Array.isArray(encoding) ? encoding.join(',') : encoding, ENVELOPE_MAX_BYTES);
  const envelope = parseEnvelope(body);
  const item = envelope.items.find((i) => i.headers.type === 'event');
  if (item) parseEventPayload(item.payload);
  return { id: envelope.headers.event_id };
});
await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' });
const addr = app.server.address();
process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
