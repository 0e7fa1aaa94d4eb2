// Wire types of the messages style (`POST /v1/messages`, anthropic upstreams). Only the fields the gateway reads
// or writes are typed; unknown request fields are kept in `Conversation.extras.messages`.
// @see https://docs.anthropic.com/en/api/messages

export interface MessagesCacheControl { type: 'ephemeral'; ttl?: '5m' | '1h' }

export type MessagesImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

export type MessagesDocumentSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'text'; media_type: 'text/plain'; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string }
  | { type: 'content'; content: string | MessagesTextBlock[] };

export interface MessagesTextBlock { type: 'text'; text: string; cache_control?: MessagesCacheControl | null; citations?: unknown[] | null }
export interface MessagesImageBlock { type: 'image'; source: MessagesImageSource; cache_control?: MessagesCacheControl | null }
export interface MessagesDocumentBlock {
  type: 'document';
  source: MessagesDocumentSource;
  title?: string | null;
  context?: string | null;
  citations?: { enabled?: boolean } | null;
  cache_control?: MessagesCacheControl | null;
}
export interface MessagesToolUseBlock { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; cache_control?: MessagesCacheControl | null }
export interface MessagesToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | (MessagesTextBlock | MessagesImageBlock | MessagesDocumentBlock | MessagesToolReferenceBlock)[];
  is_error?: boolean;
  cache_control?: MessagesCacheControl | null;
}
/** A tool search's result naming a deferred tool it loaded. */
export interface MessagesToolReferenceBlock { type: 'tool_reference'; tool_name: string }
export interface MessagesThinkingBlock { type: 'thinking'; thinking: string; signature: string }
export interface MessagesRedactedThinkingBlock { type: 'redacted_thinking'; data: string }

export type MessagesContentBlock =
  | MessagesTextBlock
  | MessagesImageBlock
  | MessagesDocumentBlock
  | MessagesToolUseBlock
  | MessagesToolResultBlock
  | MessagesThinkingBlock
  | MessagesRedactedThinkingBlock;

export interface MessagesMessage {
  role: 'user' | 'assistant' | 'system';
  content: string | MessagesContentBlock[];
}

export interface MessagesTool {
  /** Absent or `custom` for client tools; server tools carry a versioned type such as `web_search_20250305`. */
  type?: string;
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  cache_control?: MessagesCacheControl | null;
  [field: string]: unknown;
}

export type MessagesToolChoice =
  | { type: 'auto' | 'any' | 'none'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean };

export type MessagesThinking = { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' } | { type: 'disabled' };

export interface MessagesRequest {
  model: string;
  max_tokens?: number;
  messages: MessagesMessage[];
  system?: string | MessagesTextBlock[];
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stream?: boolean;
  tools?: MessagesTool[];
  tool_choice?: MessagesToolChoice;
  thinking?: MessagesThinking;
  output_config?: { effort?: string; format?: { type: 'json_schema'; schema: Record<string, unknown> } | null; [k: string]: unknown };
  metadata?: { user_id?: string | null };
  [field: string]: unknown;
}

export type MessagesStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
  service_tier?: string | null;
  [field: string]: unknown;
}

export interface MessagesResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: MessagesContentBlock[];
  stop_reason: MessagesStopReason | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

export type MessagesDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'input_json_delta'; partial_json: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta'; signature: string }
  | { type: 'citations_delta'; citation: unknown };

export interface MessagesErrorObject { type: string; message: string }

export type MessagesStreamEvent =
  | { type: 'message_start'; message: MessagesResponse }
  | { type: 'content_block_start'; index: number; content_block: MessagesContentBlock | { type: string; [k: string]: unknown } }
  | { type: 'content_block_delta'; index: number; delta: MessagesDelta }
  | { type: 'content_block_stop'; index: number }
  | {
    type: 'message_delta';
    delta: { stop_reason: MessagesStopReason | null; stop_sequence: string | null };
    usage: Partial<MessagesUsage>;
  }
  | { type: 'message_stop' }
  | { type: 'ping' }
  | { type: 'error'; error: MessagesErrorObject };

export interface MessagesErrorBody {
  type: 'error';
  error: MessagesErrorObject;
  request_id?: string;
}
