/**
 * The registry of wire styles: name → the pieces that translate it to and from the internal model.
 * A style pair is decode (one style) + encode (the other); adding a style adds one entry, not a row of pairs.
 * The conformance suite (test/conformance) runs every pair of registered styles.
 */
import type { Conversation, Reply, SseMessage, StreamEvent, StyleName, UpstreamError } from './model.ts';
import type { HeaderBag } from './upstream-error-status.ts';
import { decodeChatRequest } from './chat/decode-chat-request.ts';
import { encodeChatRequest } from './chat/encode-chat-request.ts';
import { decodeChatResponse } from './chat/decode-chat-response.ts';
import { encodeChatResponse } from './chat/encode-chat-response.ts';
import { ChatStreamDecoder } from './chat/chat-stream-decoder.ts';
import { ChatStreamEncoder, frameChatStreamOut } from './chat/chat-stream-encoder.ts';
import { decodeChatError, encodeChatError } from './chat/chat-errors.ts';
import { decodeMessagesRequest } from './messages/decode-messages-request.ts';
import { encodeMessagesRequest } from './messages/encode-messages-request.ts';
import { decodeMessagesResponse } from './messages/decode-messages-response.ts';
import { encodeMessagesResponse } from './messages/encode-messages-response.ts';
import { MessagesStreamDecoder } from './messages/messages-stream-decoder.ts';
import { MessagesStreamEncoder, frameMessagesStreamOut } from './messages/messages-stream-encoder.ts';
import { decodeMessagesError, encodeMessagesError } from './messages/messages-errors.ts';
import { decodeGenerativeRequest } from './generative/decode-generative-request.ts';
import { encodeGenerativeRequest } from './generative/encode-generative-request.ts';
import { decodeGenerativeResponse } from './generative/decode-generative-response.ts';
import { encodeGenerativeResponse } from './generative/encode-generative-response.ts';
import { GenerativeStreamDecoder } from './generative/generative-stream-decoder.ts';
import { GenerativeStreamEncoder, frameGenerativeStreamOut } from './generative/generative-stream-encoder.ts';
import { decodeGenerativeError, encodeGenerativeError } from './generative/generative-errors.ts';
import { decodeResponsesRequest } from './responses/decode-responses-request.ts';
import { encodeResponsesRequest } from './responses/encode-responses-request.ts';
import { decodeResponsesResponse } from './responses/decode-responses-response.ts';
import { encodeResponsesResponse } from './responses/encode-responses-response.ts';
import { ResponsesStreamDecoder } from './responses/responses-stream-decoder.ts';
import { ResponsesStreamEncoder, frameResponsesStreamOut } from './responses/responses-stream-encoder.ts';
import { decodeResponsesError, encodeResponsesError } from './responses/responses-errors.ts';

/** Options every stream encoder accepts (each uses what applies to its style). */
export interface StreamEncoderOptions {
  /** The client asked for usage in the stream (chat `stream_options.include_usage`). */
  includeUsage?: boolean;
  /** The model name to show to the client instead of the upstream's. */
  model?: string;
  /** Unix seconds for styles that stamp chunks. */
  created?: number;
  /**
   * The client already has the start of this stream (a passed-through stream that broke): the encoder only closes
   * it, continuing the upstream's response id and event numbering where the style has them (responses).
   */
  continuing?: { id?: string; sequenceFrom?: number };
  /**
   * The client's request as its style's decoder read it: tool names it changed (`toolRenames`) are mapped back, and
   * a style whose answer echoes the request (responses: instructions, tools, sampling) takes them from it.
   */
  request?: Conversation;
}

/** Options every response encoder accepts. */
export interface ResponseEncoderOptions {
  /** As StreamEncoderOptions.request. */
  request?: Conversation;
}

export interface StreamDecoderLike {
  push(ev: SseMessage): StreamEvent[];
  end(): StreamEvent[];
}

export interface StreamEncoderLike<Out> {
  push(ev: StreamEvent): Out[];
  end(): Out[];
}

/** An SSE frame to serialise with core/sse `writeSse`. */
export interface SseFrame {
  event?: string;
  data: string;
}

export interface StyleTranslator<Out = unknown> {
  name: StyleName;
  /** Client request body (parsed JSON) → Conversation; throws a TranslationError on a body it cannot read. */
  decodeRequest(body: unknown): Conversation;
  /** Conversation → upstream request body (to JSON.stringify); may add to `conv.warnings` or throw a TranslationError. */
  encodeRequest(conv: Conversation): object;
  /** Upstream JSON answer → Reply. */
  decodeResponse(json: unknown): Reply;
  /** Reply → client JSON answer. */
  encodeResponse(reply: Reply, options?: ResponseEncoderOptions): object;
  /** Fed parsed upstream SSE events. */
  StreamDecoder: new () => StreamDecoderLike;
  /** Fed StreamEvents; yields the style's stream objects, framed by `frame`. */
  StreamEncoder: new (options?: StreamEncoderOptions) => StreamEncoderLike<Out>;
  /** One stream-encoder output → one SSE frame. */
  frame(out: Out): SseFrame;
  /** An upstream error answer (status undefined for an in-stream error) → UpstreamError. */
  decodeError(status: number | undefined, body: unknown, headers?: HeaderBag): UpstreamError;
  /** UpstreamError → the status, body and headers to answer a client of this style with. */
  encodeError(err: UpstreamError): { status: number; body: object; headers: Record<string, string> };
}

const chat: StyleTranslator<ReturnType<ChatStreamEncoder['push']>[number]> = {
  name: 'chat',
  decodeRequest: decodeChatRequest,
  encodeRequest: (conv) => encodeChatRequest(conv),
  decodeResponse: decodeChatResponse,
  encodeResponse: (reply) => encodeChatResponse(reply),
  StreamDecoder: ChatStreamDecoder,
  StreamEncoder: ChatStreamEncoder,
  frame: frameChatStreamOut,
  decodeError: decodeChatError,
  encodeError: encodeChatError,
};

const messages: StyleTranslator<ReturnType<MessagesStreamEncoder['push']>[number]> = {
  name: 'messages',
  decodeRequest: decodeMessagesRequest,
  encodeRequest: encodeMessagesRequest,
  decodeResponse: decodeMessagesResponse,
  encodeResponse: encodeMessagesResponse,
  StreamDecoder: MessagesStreamDecoder,
  StreamEncoder: MessagesStreamEncoder,
  frame: frameMessagesStreamOut,
  decodeError: decodeMessagesError,
  encodeError: encodeMessagesError,
};

/**
 * Generative-language style. The model is not part of the body (it is in the path, `models/{model}:…`), and the
 * stream flag is the endpoint (`:streamGenerateContent`): routes call decodeGenerativeRequest(body, model,
 * {stream}) directly, or pass the path's model as a `model` field of the body here; the upstream URL is built
 * from `conv.model`. Without `alt=sse`, stream chunks are framed with GenerativeJsonArrayWriter instead of `frame`.
 */
const generative: StyleTranslator<ReturnType<GenerativeStreamEncoder['push']>[number]> = {
  name: 'generative',
  decodeRequest: (body) => decodeGenerativeRequest(body),
  encodeRequest: encodeGenerativeRequest,
  decodeResponse: decodeGenerativeResponse,
  encodeResponse: encodeGenerativeResponse,
  StreamDecoder: GenerativeStreamDecoder,
  StreamEncoder: GenerativeStreamEncoder,
  frame: frameGenerativeStreamOut,
  decodeError: (status, body, headers) => decodeGenerativeError(status ?? 0, body, headers),
  encodeError: encodeGenerativeError,
};

/**
 * Responses style. `encodeRequest` writes the plain API form (`store:false`); the ChatGPT-plan backend, its only
 * upstream, needs `toCodexRequest` (responses/to-codex-request.ts) applied on top, and always streams: a JSON
 * client is then served from the collected stream (collect-stream.ts).
 */
const responses: StyleTranslator<ReturnType<ResponsesStreamEncoder['push']>[number]> = {
  name: 'responses',
  decodeRequest: decodeResponsesRequest,
  encodeRequest: encodeResponsesRequest,
  decodeResponse: decodeResponsesResponse,
  encodeResponse: encodeResponsesResponse,
  StreamDecoder: ResponsesStreamDecoder,
  StreamEncoder: ResponsesStreamEncoder,
  frame: frameResponsesStreamOut,
  decodeError: (status, body, headers) => decodeResponsesError(status ?? 0, body, headers),
  encodeError: encodeResponsesError,
};

/** Every registered style. */
export const STYLES: Partial<Record<StyleName, StyleTranslator>> = {
  chat,
  messages,
  generative,
  responses,
};

export function getStyle(name: StyleName): StyleTranslator {
  const style = STYLES[name];
  if (style === undefined) throw new Error(`The ${name} style is not registered.`);
  return style;
}
