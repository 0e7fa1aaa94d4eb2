/**
 * The neutral internal model every translator decodes into and encodes from (DESIGN.md §3).
 *
 * It is a superset of the wire styles, not any one of them: chat-completions, messages, generative-language and
 * responses each have a decoder (wire → model) and an encoder (model → wire) for requests, responses and streams.
 * Things a style cannot express are either carried opaquely in `extras` (for an upstream of the same family) or
 * dropped with a line in `warnings`.
 *
 * Conventions that every decoder and encoder follows:
 * - Token counts: see `Usage` (input EXCLUDES cache tokens, output INCLUDES reasoning tokens).
 * - Tool-call ids are kept verbatim across styles; an id is made up only when the upstream sent none.
 * - Signatures (thinking signatures, thought signatures, encrypted reasoning) are opaque and only meaningful to the
 *   family that produced them: `origin` names that family and encoders of another family drop them.
 * - Stream part indexes count parts of every kind in reply order, from 0; several parts may be open at once
 *   (parallel tool calls whose argument deltas interleave). Encoders that need one open block at a time serialise.
 */

/** The wire styles. A style name doubles as the "family" that owns signatures and extras. */
export type StyleName = 'chat' | 'messages' | 'generative' | 'responses';

/** A prompt-cache breakpoint (messages style `cache_control`). */
export interface CacheMarker {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/** Where the bytes of an image, audio clip or document are. */
export type MediaSource =
  | { kind: 'url'; url: string; mediaType?: string }
  | { kind: 'base64'; mediaType: string; data: string }
  /** Plain text content of a document (messages style `source.type:"text"`). */
  | { kind: 'text'; mediaType: string; text: string }
  /** A provider-side file id (messages `file_id`, chat/responses `file_id`, generative `fileUri`). */
  | { kind: 'file'; fileId: string; mediaType?: string };

export interface TextPart {
  type: 'text';
  text: string;
  cache?: CacheMarker;
  /** Opaque citations/annotations as the producing style sent them. */
  citations?: unknown[];
}

export interface ImagePart {
  type: 'image';
  /** An image is a `url` or `base64` source in practice; `file` for provider file ids. */
  source: MediaSource;
  /** chat/responses `detail`. */
  detail?: 'auto' | 'low' | 'high';
  cache?: CacheMarker;
}

export interface AudioPart {
  type: 'audio';
  /** Base64 audio; `mediaType` is e.g. audio/wav or audio/mpeg. */
  source: MediaSource;
}

export interface DocumentPart {
  type: 'document';
  source: MediaSource;
  title?: string;
  filename?: string;
  context?: string;
  /** messages style `citations.enabled`. */
  citations?: boolean;
  cache?: CacheMarker;
}

export interface ToolCallPart {
  type: 'tool_call';
  id: string;
  name: string;
  /** Parsed arguments; `{}` when the raw text is not a JSON object. */
  arguments: Record<string, unknown>;
  /** The arguments exactly as the producing style sent them (JSON text). */
  argumentsText: string;
  /** An opaque signature attached to the call (generative-language `thoughtSignature`). */
  signature?: string;
  /** The family that produced `signature`. */
  origin?: StyleName;
  cache?: CacheMarker;
}

/** What a tool result may contain. */
export type ToolResultContent = TextPart | ImagePart | DocumentPart;

export interface ToolResultPart {
  type: 'tool_result';
  callId: string;
  /** The called tool's name when known (generative-language pairs results by name). */
  name?: string;
  content: ToolResultContent[];
  isError: boolean;
  cache?: CacheMarker;
}

export interface ThinkingPart {
  type: 'thinking';
  text: string;
  /** Opaque signature (messages `signature`, responses `encrypted_content`, generative `thoughtSignature`). */
  signature?: string;
  /** The family that produced `signature`; encoders of another family drop the signature (and the part if needed). */
  origin?: StyleName;
  /** responses style reasoning item id (`rs_…`), kept for replay to the same family. */
  itemId?: string;
}

export interface RedactedThinkingPart {
  type: 'redacted_thinking';
  data: string;
  origin?: StyleName;
}

/** A refusal written by the model (chat `message.refusal`, responses `refusal` content). */
export interface RefusalPart {
  type: 'refusal';
  text: string;
}

export type Part =
  | TextPart
  | ImagePart
  | AudioPart
  | DocumentPart
  | ToolCallPart
  | ToolResultPart
  | ThinkingPart
  | RedactedThinkingPart
  | RefusalPart;

export type PartType = Part['type'];

/**
 * One turn of the conversation.
 * - `user`: text, media, and tool results (messages/generative carry results in the user turn).
 * - `assistant`: text, thinking, tool calls, refusals.
 * - `tool`: tool results as their own turn (chat `role:"tool"`, one result per turn there).
 * - `system`: instructions that appear mid-conversation (after the first non-system turn); leading instructions
 *   live in `Conversation.system`. Encoders of styles without mid-conversation instructions send them as user text.
 * Where tool results go is decided by the encoder; decoders keep what the wire said.
 */
export interface Turn {
  role: 'user' | 'assistant' | 'tool' | 'system';
  parts: Part[];
}

export interface ToolDef {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  strict?: boolean;
  cache?: CacheMarker;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

export interface Sampling {
  /** Maximum output tokens, reasoning included. */
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
}

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json' }
  | { type: 'json_schema'; name?: string; schema: Record<string, unknown>; strict?: boolean };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/** Reasoning/thinking request. `effort:'none'` means reasoning off. */
export interface Reasoning {
  effort?: ReasoningEffort;
  /** Thinking token budget (messages `budget_tokens`, generative `thinkingBudget`; -1 = dynamic). */
  budgetTokens?: number;
  /** messages style `thinking:{type:"adaptive"}`. */
  adaptive?: boolean;
  /** responses style summary request. */
  summary?: 'auto' | 'concise' | 'detailed';
}

/**
 * Tool names a decoder changed to fit every style's name rules (a responses `namespace` tool's functions become
 * `<namespace>__<name>`): the name the upstream sees → what the client called it. Encoders of the client's style
 * map calls back; a name not listed is the client's own.
 */
export type ToolRenames = Record<string, { name: string; namespace?: string }>;

/** A request in neutral form. */
export interface Conversation {
  model: string;
  /** Leading instructions as text blocks (each may carry a cache marker). */
  system: TextPart[];
  turns: Turn[];
  tools: ToolDef[];
  toolChoice?: ToolChoice;
  /** false = at most one tool call per turn. */
  parallelToolCalls?: boolean;
  sampling: Sampling;
  responseFormat?: ResponseFormat;
  reasoning?: Reasoning;
  /** Number of alternative answers asked for (chat `n`, generative `candidateCount`); see encoders for n > 1. */
  candidates?: number;
  stream: boolean;
  /** The client asked for usage in the stream (chat `stream_options.include_usage`). */
  streamUsage?: boolean;
  /** A stable conversation key for sticky routing (messages `metadata.user_id`, `prompt_cache_key`, chat `user`). */
  sessionKey?: string;
  /** Per-style fields kept opaque; only an encoder of the same style reads its own entry. */
  extras: Partial<Record<StyleName, Record<string, unknown>>>;
  /** Tool names changed on the way in (see ToolRenames); absent when none was. */
  toolRenames?: ToolRenames;
  /** One sentence per parameter that was dropped or changed on the way. */
  warnings: string[];
}

/** Why generation stopped: one closed list for every style. */
export type StopReason =
  | 'end'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'content_filter'
  | 'refusal'
  | 'pause'
  | 'error';

export const STOP_REASONS = [
  'end', 'max_tokens', 'stop_sequence', 'tool_use', 'content_filter', 'refusal', 'pause', 'error',
] as const satisfies readonly StopReason[];

/**
 * Token usage of one call. Every count is `undefined` when unknown, never a silent 0.
 * - `inputTokens`: prompt tokens that were neither read from nor written to the prompt cache (the messages-style
 *   `input_tokens`). The whole prompt is inputTokens + cacheReadTokens + cacheWriteTokens. Styles whose prompt count
 *   includes cached tokens (chat `prompt_tokens`, responses `input_tokens`, generative `promptTokenCount`) subtract.
 * - `cacheReadTokens`: prompt tokens served from the cache (cheap): chat `prompt_tokens_details.cached_tokens`,
 *   messages `cache_read_input_tokens`, generative `cachedContentTokenCount`.
 * - `cacheWriteTokens`: prompt tokens written into the cache on this call (messages `cache_creation_input_tokens`;
 *   the other styles do not report it).
 * - `outputTokens`: all generated tokens, reasoning INCLUDED (generative style adds `thoughtsTokenCount`).
 * - `reasoningTokens`: the part of outputTokens spent on reasoning/thinking.
 * - `source`: 'reported' by the upstream, 'estimated' by counting locally, or 'unknown'.
 */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  source: 'reported' | 'estimated' | 'unknown';
}

/** A non-streamed answer in neutral form. */
export interface Reply {
  id: string;
  model: string;
  /** Unix seconds when known. */
  created?: number;
  /** Assistant parts in order. */
  parts: Part[];
  stopReason: StopReason;
  /** The stop sequence that matched, when stopReason is 'stop_sequence' and the style says which. */
  stopSequence?: string;
  usage: Usage;
  extras?: Partial<Record<StyleName, Record<string, unknown>>>;
}

/** The closed list of upstream error kinds. */
export type UpstreamErrorType =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'timeout';

export const UPSTREAM_ERROR_TYPES = [
  'invalid_request', 'authentication', 'permission', 'not_found', 'rate_limit', 'overloaded', 'server', 'timeout',
] as const satisfies readonly UpstreamErrorType[];

/** An error answered by an upstream (HTTP error body or mid-stream error event), in neutral form. */
export interface UpstreamError {
  /** HTTP status (for a mid-stream error: the status the error type implies). */
  status: number;
  type: UpstreamErrorType;
  message: string;
  /** Seconds to wait, from `retry-after` or a style's retry hint. */
  retryAfter?: number;
  /** The upstream's own code/type string, e.g. `insufficient_quota`, `billing_error`, `RESOURCE_EXHAUSTED`. */
  code?: string;
}

/** What a `part_start` opens. */
export type PartStart =
  | { kind: 'text' }
  | { kind: 'tool_call'; id: string; name: string }
  | { kind: 'thinking' }
  | { kind: 'redacted_thinking'; data: string; origin?: StyleName }
  | { kind: 'refusal' };

/**
 * Stream events, in the order decoders emit them:
 * `start` first; then parts (`part_start`, deltas, `part_end`, possibly interleaved across parts); `usage` any
 * number of times (cumulative: the last one wins); then exactly one terminal event, `stop` or `error`, last.
 * A decoder emits `stop` only after the final usage it will see. A stream that ends without its upstream's stop
 * signal ends with `error`, never with a clean `stop`.
 */
export type StreamEvent =
  | { type: 'start'; id: string; model: string }
  | { type: 'part_start'; index: number; part: PartStart }
  | { type: 'text_delta'; index: number; text: string }
  | { type: 'tool_args_delta'; index: number; json: string }
  | { type: 'thinking_delta'; index: number; text: string }
  | { type: 'signature'; index: number; signature: string; origin?: StyleName }
  | { type: 'part_end'; index: number }
  | { type: 'usage'; usage: Usage }
  | { type: 'stop'; reason: StopReason; stopSequence?: string }
  | { type: 'error'; error: UpstreamError };

export type StreamEventType = StreamEvent['type'];

/** A parsed server-sent event as the SSE parser yields it. */
export interface SseMessage {
  event?: string;
  data: string;
  id?: string;
}
