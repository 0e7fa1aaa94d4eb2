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

export class SseFramer implements ClientFramer {
  readonly contentType = 'text/event-stream; charset=utf-8';
  frame(ev: { event?: string; data: string }): string {
    return writeSse(ev.event === undefined ? { data: ev.data } : { event: ev.event, data: ev.data });
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
