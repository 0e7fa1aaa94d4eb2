// Wire types of the responses style (`POST /v1/responses`), the upstream of ChatGPT-plan accounts (its Codex
// backend speaks SSE only, with `store:false`). Only the fields the gateway reads or writes are typed; the rest
// of an object is allowed but ignored.
// @see https://platform.openai.com/docs/api-reference/responses

export type ResponsesJson = string | number | boolean | null | ResponsesJson[] | { [key: string]: ResponsesJson };
export type ResponsesObject = { [key: string]: ResponsesJson };

// ---- request ------------------------------------------------------------------------------------------------

export interface ResponsesInputText { type: 'input_text'; text: string }
export interface ResponsesInputImage { type: 'input_image'; image_url?: string; file_id?: string; detail?: 'low' | 'high' | 'auto' }
export interface ResponsesInputFile { type: 'input_file'; file_id?: string; file_data?: string; file_url?: string; filename?: string }
export interface ResponsesOutputText { type: 'output_text'; text: string; annotations?: ResponsesObject[]; logprobs?: ResponsesObject[] }
export interface ResponsesRefusal { type: 'refusal'; refusal: string }

export type ResponsesContentPart = ResponsesInputText | ResponsesInputImage | ResponsesInputFile | ResponsesOutputText | ResponsesRefusal;

export type ResponsesMessageRole = 'user' | 'assistant' | 'system' | 'developer';

export interface ResponsesMessageItem {
  type?: 'message';
  id?: string;
  role: ResponsesMessageRole;
  content: string | ResponsesContentPart[];
  status?: ResponsesItemStatus;
  phase?: 'commentary' | 'final_answer' | null;
}

export interface ResponsesFunctionCallItem {
  type: 'function_call';
  /** Item id, `fc_…`. */
  id?: string;
  /** Pairing id, `call_…`. */
  call_id: string;
  name: string;
  /** The `namespace` tool the called function belongs to (then `name` is the function's name inside it). */
  namespace?: string;
  /** JSON text. */
  arguments: string;
  status?: ResponsesItemStatus;
}

export interface ResponsesFunctionCallOutputItem {
  type: 'function_call_output';
  id?: string;
  call_id: string;
  output: string | ResponsesContentPart[];
  status?: ResponsesItemStatus;
}

export interface ResponsesSummaryText { type: 'summary_text'; text: string }

export interface ResponsesReasoningItem {
  type: 'reasoning';
  id?: string;
  summary: ResponsesSummaryText[];
  content?: { type: 'reasoning_text'; text: string }[];
  encrypted_content?: string | null;
  status?: ResponsesItemStatus;
}

export type ResponsesInputItem = ResponsesMessageItem | ResponsesFunctionCallItem | ResponsesFunctionCallOutputItem | ResponsesReasoningItem;

export interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description?: string;
  parameters?: ResponsesObject | null;
  strict?: boolean | null;
  /** Offered only once a tool search loads it. */
  defer_loading?: boolean;
}

/** A group of function tools called as `name` inside the namespace (Codex CLI's `multi_agent_v1`). */
export interface ResponsesNamespaceTool {
  type: 'namespace';
  name: string;
  description?: string;
  tools: ({ type: string } & ResponsesObject)[];
}

/** Built-in tools (`web_search`, …) are kept opaque. */
export type ResponsesTool = ResponsesFunctionTool | ({ type: string } & ResponsesObject);

export type ResponsesToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function'; name: string }
  | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: ResponsesObject[] };

export type ResponsesEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

export type ResponsesTextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: ResponsesObject; strict?: boolean | null; description?: string };

export interface ResponsesRequest {
  model: string;
  instructions?: string | null;
  input: string | ResponsesInputItem[];
  tools?: ResponsesTool[];
  tool_choice?: ResponsesToolChoice;
  parallel_tool_calls?: boolean;
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  stream?: boolean;
  store?: boolean;
  previous_response_id?: string;
  reasoning?: { effort?: ResponsesEffort | null; summary?: 'auto' | 'concise' | 'detailed' | null };
  text?: { format?: ResponsesTextFormat; verbosity?: 'low' | 'medium' | 'high' | null };
  include?: string[];
  prompt_cache_key?: string;
  metadata?: Record<string, string>;
  service_tier?: string;
  user?: string;
}

// ---- response -----------------------------------------------------------------------------------------------

export type ResponsesItemStatus = 'in_progress' | 'completed' | 'incomplete';

export type ResponsesStatus = 'completed' | 'incomplete' | 'failed' | 'in_progress' | 'queued' | 'cancelled';

export type ResponsesIncompleteReason = 'max_output_tokens' | 'content_filter';

export interface ResponsesOutputMessage {
  type: 'message';
  id: string;
  role: 'assistant';
  status: ResponsesItemStatus;
  content: (ResponsesOutputText | ResponsesRefusal)[];
  phase?: 'commentary' | 'final_answer' | null;
}

export type ResponsesOutputItem =
  | ResponsesOutputMessage
  | (ResponsesFunctionCallItem & { id: string })
  | (ResponsesReasoningItem & { id: string });

export interface ResponsesUsage {
  /** Includes cached tokens. */
  input_tokens: number;
  input_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  /** Includes reasoning tokens. */
  output_tokens: number;
  output_tokens_details?: { reasoning_tokens?: number } | null;
  total_tokens?: number;
}

export interface ResponsesResponseError { code: string; message: string }

export interface ResponsesResponse {
  id: string;
  object: 'response';
  created_at: number;
  status?: ResponsesStatus;
  model: string;
  output: ResponsesOutputItem[];
  usage?: ResponsesUsage | null;
  error?: ResponsesResponseError | null;
  incomplete_details?: { reason?: ResponsesIncompleteReason | string } | null;
  instructions?: string | null;
  /** Fields the official client requires on a full object; the encoder fills them with neutral values. */
  output_text?: string;
  parallel_tool_calls?: boolean;
  tool_choice?: ResponsesToolChoice;
  tools?: ResponsesTool[];
  temperature?: number | null;
  top_p?: number | null;
  metadata?: Record<string, string> | null;
}

// ---- stream -------------------------------------------------------------------------------------------------

interface Seq { sequence_number?: number }

/** One member per event type (distributes over a union of type names). */
type Each<T extends string, B> = T extends string ? Seq & { type: T } & B : never;

export type ResponsesStreamEvent =
  | Each<'response.created' | 'response.in_progress' | 'response.queued', { response: ResponsesResponse }>
  | Each<'response.completed' | 'response.incomplete' | 'response.failed', { response: ResponsesResponse }>
  | Each<'response.output_item.added' | 'response.output_item.done', { output_index: number; item: ResponsesOutputItem }>
  | Each<'response.content_part.added' | 'response.content_part.done', {
    item_id: string; output_index: number; content_index: number; part: ResponsesOutputText | ResponsesRefusal;
  }>
  | Each<'response.output_text.delta', { item_id: string; output_index: number; content_index: number; delta: string; logprobs?: ResponsesJson[] }>
  | Each<'response.output_text.done', { item_id: string; output_index: number; content_index: number; text: string; logprobs?: ResponsesJson[] }>
  | Each<'response.refusal.delta', { item_id: string; output_index: number; content_index: number; delta: string }>
  | Each<'response.refusal.done', { item_id: string; output_index: number; content_index: number; refusal: string }>
  | Each<'response.function_call_arguments.delta', { item_id: string; output_index: number; delta: string }>
  | Each<'response.function_call_arguments.done', { item_id: string; output_index: number; arguments: string; name?: string }>
  | Each<'response.reasoning_summary_part.added' | 'response.reasoning_summary_part.done', {
    item_id: string; output_index: number; summary_index: number; part: ResponsesSummaryText;
  }>
  | Each<'response.reasoning_summary_text.delta', { item_id: string; output_index: number; summary_index: number; delta: string }>
  | Each<'response.reasoning_summary_text.done', { item_id: string; output_index: number; summary_index: number; text: string }>
  | Each<'response.reasoning_text.delta', { item_id: string; output_index: number; content_index: number; delta: string }>
  | Each<'response.reasoning_text.done', { item_id: string; output_index: number; content_index: number; text: string }>
  | Each<'error', {
    code?: string | null; message?: string; param?: string | null;
    /** Recorded streams nest the fields here instead. */
    error?: { type?: string; code?: string | null; message?: string; param?: string | null };
  }>;

export type ResponsesStreamEventType = ResponsesStreamEvent['type'];

// ---- errors -------------------------------------------------------------------------------------------------

/** HTTP error body: the chat-style `error` object; the Codex backend adds quota fields, or answers `{detail}`. */
export interface ResponsesErrorBody {
  error?: {
    message: string;
    type?: string;
    code?: string | null;
    param?: string | null;
    plan_type?: string;
    resets_at?: number;
    resets_in_seconds?: number;
  };
  detail?: string;
}
