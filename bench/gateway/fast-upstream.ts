/**
 * A fast fake provider for benchmarks: every answer is computed once at start (with the wire writers of the test
 * fakes), so the upstream costs almost nothing per request. Serves the chat-completions (`/v1/chat/completions`),
 * messages (`/v1/messages`) and generative-language (`/v1beta/models/{m}:generateContent`,
 * `:streamGenerateContent`) styles, JSON or streamed (10 text deltas, usage at the end).
 *   node bench/gateway/fast-upstream.ts <port>
 */
import { createServer } from 'node:http';
import { chatWire } from '../../test/fakes/chat-wire.ts';
import { generativeWire } from '../../test/fakes/generative-wire.ts';
import { messagesWire } from '../../test/fakes/messages-wire.ts';
import type { FakeAnswer, FakeWire } from '../../test/fakes/fake-upstream.ts';

const WORDS = ['The ', 'quick ', 'brown ', 'fox ', 'jumps ', 'over ', 'the ', 'lazy ', 'dog ', 'again.'];
const ANSWER: FakeAnswer = { text: WORDS.join(''), stop: 'end', usage: { input: 42, output: 12 } };

function precompute(wire: FakeWire, method: string, path: string, query: string, body: unknown): { json: Buffer; stream: Buffer } {
  const info = wire.inspect(method, path, new URLSearchParams(query), body)!;
  const json = Buffer.from(JSON.stringify(wire.json(ANSWER, info)));
  const streamInfo = wire.inspect(method, path, new URLSearchParams(query), { ...(body as object), stream: true })!;
  const frames = [...wire.headFrames(streamInfo), ...WORDS.map((w) => wire.textFrame(w, streamInfo)), ...wire.tailFrames(ANSWER, streamInfo)];
  return { json, stream: Buffer.from(frames.join('')) };
}

const chat = precompute(chatWire, 'POST', '/v1/chat/completions', '', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
const messages = precompute(messagesWire, 'POST', '/v1/messages', '', { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'hi' }] });
const generative = precompute(generativeWire, 'POST', '/v1beta/models/gemini-2.5-flash:streamGenerateContent', 'alt=sse', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });

const chatSlowFrames = (() => {
  const info = chatWire.inspect('POST', '/v1/chat/completions', new URLSearchParams(), { model: 'gpt-4o-slow', stream: true, messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } })!;
  return [chatWire.headFrames(info).join(''), ...WORDS.map((w) => chatWire.textFrame(w, info)), chatWire.tailFrames(ANSWER, info).join('')];
})();

async function slow(res: import('node:http').ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const f of chatSlowFrames.slice(0, -1)) {
    if (res.destroyed) return;
    res.write(f);
    await new Promise((r) => setTimeout(r, 100));
  }
  res.end(chatSlowFrames[chatSlowFrames.length - 1]);
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const url = req.url ?? '';
    if (url.startsWith('/slow/')) return void slow(res);
    const streamed = url.includes(':streamGenerateContent') || Buffer.concat(chunks).includes('"stream":true');
    const set = url.startsWith('/v1beta/') ? generative : url.startsWith('/v1/messages') ? messages : url.includes('/chat/completions') ? chat : undefined;
    if (!set) {
      res.writeHead(404, JSON_HEADERS).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = streamed ? set.stream : set.json;
    res.writeHead(200, { ...(streamed ? SSE_HEADERS : JSON_HEADERS), 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
