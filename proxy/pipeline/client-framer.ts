/**
 * How stream events are framed for the client: SSE (`event:`/`data:` frames, every style), or the JSON array
 * of a generative-language stream asked without `alt=sse` (`[{…},\r\n{…}]`, reference §C). The data of each event is
 * one JSON text either way.
 */
import { writeSse } from '../../core/sse.ts';

export interface ClientFramer {
  readonly contentType: string;
  frame(ev: { event?: string; data: string }): string;
  end(): string;
}

/** A line break in a field: such a frame goes through writeSse (several data lines, or a refusal for the name). */
function hasBreak(s: string): boolean {
  return s.includes('\n') || s.includes('\r');
}

export class SseFramer implements ClientFramer {
  readonly contentType = 'text/event-stream; charset=utf-8';
  frame(ev: { event?: string; data: string }): string {
    // Fast path, no object or regular expression per frame: the data of a translated frame is one JSON text
    // (JSON.stringify never writes a raw line break), so it is one `data:` line.
    const { event, data } = ev;
    if (!hasBreak(data) && (event === undefined || !hasBreak(event))) {
      return event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`;
    }
    return writeSse(event === undefined ? { data } : { event, data });
  }
  end(): string {
    return '';
  }
}

export class JsonArrayFramer implements ClientFramer {
  readonly contentType = 'application/json; charset=utf-8';
  #count = 0;
  frame(ev: { data: string }): string {
    return (this.#count++ === 0 ? '[' : ',\r\n') + ev.data;
  }
  end(): string {
    return this.#count === 0 ? '[]' : ']';
  }
}
