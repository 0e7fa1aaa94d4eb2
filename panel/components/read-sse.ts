/**
 * Reads a server-sent event stream from a fetch answer: yields {event, data} per event, accepting CRLF, LF and CR
 * line endings (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
 */
export interface SseEvent {
  event: string;
  data: string;
}

export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let event = '';
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    buf += decoder.decode(value ?? new Uint8Array(), { stream: !done });
    const lines = buf.split(/\r\n|\r|\n/);
    // The last piece may be an incomplete line (or a CR whose LF has not arrived): keep it for the next chunk.
    buf = done ? '' : (lines.pop() ?? '');
    for (const line of lines) {
      if (line === '') {
        if (data.length) yield { event: event || 'message', data: data.join('\n') };
        event = '';
        data = [];
      } else if (!line.startsWith(':')) {
        const i = line.indexOf(':');
        const field = i < 0 ? line : line.slice(0, i);
        const v = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
        if (field === 'event') event = v;
        else if (field === 'data') data.push(v);
      }
    }
    if (done) {
      if (data.length) yield { event: event || 'message', data: data.join('\n') };
      return;
    }
  }
}
