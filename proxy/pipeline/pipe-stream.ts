/**
 * Streaming an upstream answer to the client as it arrives (DESIGN.md §3 steps 7 and 9), never buffered whole.
 *
 * - passthrough (same style): upstream chunks are written as they come while an SSE parser reads them on the side
 *   for usage (usage-taps.ts); when the chat usage chunk must be hidden the bytes go out at event boundaries with
 *   that event cut out, and a JSON-array client gets the events re-framed, their data unchanged.
 * - translated: upstream SSE → the upstream style's stream decoder → StreamEvents → the client style's stream
 *   encoder → frames; the first frame is written as soon as the first upstream event is translated.
 *
 * Either way a stream that breaks (malformed SSE, upstream closed or reset mid-answer) ends with an error event in
 * the client's style, never a clean-looking truncated answer (reference §E10); a client that goes away aborts the
 * upstream read (the sink's signal) and the caller records what was produced.
 *
 * The stream's final event (final-event.ts) and the end of the answer are not sent here: from the final event on
 * the sink holds what is written, and the caller releases it once the usage record is durable (run-call.ts).
 * Every earlier event goes out as it arrives.
 */
import { SseParser, type SseEvent } from '../../core/sse.ts';
import type { StreamEvent, StyleName, UpstreamError, Usage } from '../../translators/model.ts';
import { getStyle, type StreamEncoderOptions } from '../../translators/styles.ts';
import { mergeUsage } from '../../translators/usage.ts';
import type { ClientFramer } from './client-framer.ts';
import type { ClientSink } from './client-sink.ts';
import type { UsageTap } from './usage-taps.ts';
import { cutEvents, EventWithholder } from './withhold-events.ts';
import { finalFrameStart, isFinalEvent } from './final-event.ts';
import { readChunks } from '../upstream/read-chunks.ts';
import type { UpstreamResponse } from '../upstream/send-upstream.ts';
import type { StreamCollector } from '../../translators/collect-stream.ts';

type Body = UpstreamResponse['body'];

export interface StreamResult {
  usage: Usage;
  /** The answer reached its normal end. */
  complete: boolean;
  /** The stream ended with an error event (the upstream's own, or one the gateway added). */
  error: UpstreamError | undefined;
  clientGone: boolean;
  /** Text, thinking and tool arguments produced (for estimating output tokens when none were reported). */
  producedText(): string;
}

const KEEP_FOR_ESTIMATE = 1024 * 1024;

const BROKEN: UpstreamError = { status: 502, type: 'server', message: 'The upstream stream ended before the answer was finished.' };

/** The client-style frames that end a broken stream. */
function errorFrames(clientStyle: StyleName, framer: ClientFramer, error: UpstreamError, options?: StreamEncoderOptions): string {
  const style = getStyle(clientStyle);
  const enc = new style.StreamEncoder(options);
  return enc.push({ type: 'error', error }).map((o) => framer.frame(style.frame(o))).join('');
}

function brokenBy(err: unknown): UpstreamError {
  const code = (err as { code?: unknown })?.code;
  if (code === 'UND_ERR_BODY_TIMEOUT') return { status: 504, type: 'timeout', message: 'The upstream provider stopped sending in the middle of the answer.' };
  return BROKEN;
}

/**
 * How a same-style stream reaches the client: `raw` chunks as they come; `withhold` at event boundaries with the
 * events the tap refuses cut out (withhold-events.ts); `reframe` event by event through the framer (a JSON-array
 * client of an SSE upstream).
 */
export type PassthroughMode = 'raw' | 'withhold' | 'reframe';

/** `collect`, when given, receives the stream as StreamEvents (call-body logging); nothing is decoded without it. */
export async function pipePassthrough(
  body: Body, sink: ClientSink, style: StyleName, tap: UsageTap, framer: ClientFramer, mode: PassthroughMode, collect?: StreamCollector,
): Promise<StreamResult> {
  const parser = new SseParser({ dispatchIncompleteAtEnd: true });
  const withholder = mode === 'withhold' ? new EventWithholder() : undefined;
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let broken: UpstreamError | undefined;
  const decoder = collect ? new (getStyle(style).StreamDecoder)() : undefined;
  /**
   * What to write for the events completed by one chunk (`bytes`: the chunk, or the released part of it). When
   * the final event is among them, what comes before it is written here and the sink starts holding.
   */
  const handle = (events: SseEvent[], bytes: Buffer | undefined): string | Buffer | undefined => {
    let framed = '';
    let dropped: SseEvent[] | undefined;
    let final: SseEvent | undefined;
    for (const ev of events) {
      if (decoder && collect) for (const se of decoder.push(ev)) collect.push(se);
      const keep = tap.push(ev);
      if (keep && !sink.holding && final === undefined && isFinalEvent(style, ev)) final = ev;
      if (mode === 'reframe') {
        if (!keep) continue;
        if (final === ev) {
          void sink.write(framed);
          sink.hold();
          framed = '';
        }
        framed += framer.frame(ev);
      } else if (!keep) (dropped ??= []).push(ev);
    }
    if (mode === 'reframe') return framed;
    let out: string | Buffer | undefined = bytes;
    if (dropped && bytes !== undefined) out = cutEvents(bytes, dropped) ?? events.filter((e) => !dropped.includes(e)).map((e) => framer.frame(e)).join('');
    if (final === undefined || out === undefined) return out;
    const buf = typeof out === 'string' ? Buffer.from(out) : out;
    const at = finalFrameStart(buf, final);
    if (at > 0) void sink.write(buf.subarray(0, at));
    sink.hold();
    return at > 0 ? buf.subarray(at) : buf;
  };
  try {
    await readChunks(body, (buf) => {
      if (keptBytes < KEEP_FOR_ESTIMATE) {
        kept.push(buf);
        keptBytes += buf.length;
      }
      const events = parser.feed(buf);
      const out = handle(events, mode === 'raw' ? buf : withholder?.release(buf));
      return out === undefined ? undefined : sink.write(out);
    });
    const tail = handle(parser.end(), withholder?.rest());
    if (decoder && collect) for (const se of decoder.end()) collect.push(se);
    if (mode !== 'raw' && tail) sink.write(tail);
  } catch (err) {
    if (!sink.gone) broken = brokenBy(err);
  }
  sink.hold();
  if (!sink.gone && !tap.complete && !tap.failed) broken ??= BROKEN;
  if (broken) sink.write(errorFrames(style, framer, broken, { continuing: tap.continuation?.() ?? {} }));
  sink.end(mode === 'reframe' ? framer.end() : undefined);
  return {
    usage: tap.usage(),
    complete: tap.complete && !broken,
    error: broken ?? (tap.failed ? { status: 502, type: 'server', message: 'The upstream sent an error event.' } : undefined),
    clientGone: sink.gone,
    producedText: () => textOfStream(style, kept),
  };
}

export async function pipeTranslated(
  body: Body, sink: ClientSink, upstreamStyle: StyleName, clientStyle: StyleName, framer: ClientFramer, options: StreamEncoderOptions, collect?: StreamCollector,
): Promise<StreamResult> {
  const up = getStyle(upstreamStyle);
  const client = getStyle(clientStyle);
  const parser = new SseParser({ dispatchIncompleteAtEnd: true });
  const decoder = new up.StreamDecoder();
  const encoder = new client.StreamEncoder(options);
  let usage: Usage = { source: 'unknown' };
  let complete = false;
  let error: UpstreamError | undefined;
  const text: string[] = [];
  // Frames wait here until the chunk's write; the final one flushes what precedes it and starts the sink's hold.
  let pending = '';
  const emit = (events: StreamEvent[]): void => {
    for (const ev of events) {
      collect?.push(ev);
      if (ev.type === 'text_delta' || ev.type === 'thinking_delta') text.push(ev.text);
      else if (ev.type === 'tool_args_delta') text.push(ev.json);
      else if (ev.type === 'usage') usage = mergeUsage(usage, ev.usage);
      else if (ev.type === 'stop') complete = true;
      else if (ev.type === 'error') error = ev.error;
      // Every encoder makes a stream's final event from its stop or its error (or at its end, after the hold
      // below): the frames of other events are not looked at (the text of each frame, on every delta).
      const mayEnd = ev.type === 'stop' || ev.type === 'error';
      for (const o of encoder.push(ev)) {
        const f = client.frame(o);
        if (mayEnd && !sink.holding && isFinalEvent(clientStyle, f)) {
          void sink.write(pending);
          sink.hold();
          pending = '';
        }
        pending += framer.frame(f);
      }
    }
  };
  const feed = (events: SseEvent[]): void => {
    for (const ev of events) emit(decoder.push(ev));
  };
  const flush = (): Promise<void> | undefined => {
    const out = pending;
    pending = '';
    return sink.write(out);
  };
  try {
    await readChunks(body, (buf) => {
      feed(parser.feed(buf));
      return flush();
    });
    feed(parser.end());
    emit(decoder.end());
    void flush();
  } catch (err) {
    if (!sink.gone) emit([{ type: 'error', error: brokenBy(err) }]);
    void flush();
  }
  sink.hold();
  if (!sink.gone) {
    let rest = '';
    for (const o of encoder.end()) rest += framer.frame(client.frame(o));
    if (!complete && !error) error = BROKEN;
    sink.write(rest);
  }
  sink.end(framer.end());
  return { usage, complete: complete && !error, error, clientGone: sink.gone, producedText: () => text.join('') };
}

/** The text a (possibly cut) same-style stream produced, decoded after the fact for estimates. */
function textOfStream(style: StyleName, chunks: Buffer[]): string {
  const parser = new SseParser({ dispatchIncompleteAtEnd: true });
  const decoder = new (getStyle(style).StreamDecoder)();
  const out: string[] = [];
  const take = (events: StreamEvent[]) => {
    for (const ev of events) {
      if (ev.type === 'text_delta' || ev.type === 'thinking_delta') out.push(ev.text);
      else if (ev.type === 'tool_args_delta') out.push(ev.json);
    }
  };
  for (const c of chunks) for (const ev of parser.feed(c)) take(decoder.push(ev));
  for (const ev of parser.end()) take(decoder.push(ev));
  return out.join('');
}
