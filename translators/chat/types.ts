// Wire types of the chat-completions style (`POST /v1/chat/completions`), used by the `openai` and
// `openai-compatible` upstreams. Only the fields the gateway reads or writes are typed; unknown request fields are
// kept in `Conversation.extras.chat` and sent back to a chat upstream unchanged.
// @see https://platform.openai.com/docs/api-reference/chat

export interface ChatCacheControl { type: 'ephemeral'; ttl?: '5m' | '1h' }

export interface ChatTextPart { type: 'text'; text: string; cache_control?: ChatCacheControl }
export interface ChatImagePart { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
export interface ChatAudioPart { type: 'input_audio'; input_audio: { data: string; format: string } }
export interface ChatFilePart { type: 'file'; file: { file_data?: string; file_id?: string; filename?: string } }
export interface ChatRefusalPart { type: 'refusal'; refusal: string }

export type ChatUserPart = ChatTextPart | ChatImagePart | ChatAudioPart | ChatFilePart;

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatSystemMessage { role: 'system' | 'developer'; content: string | ChatTextPart[]; name?: string }
export interface ChatUserMessage { role: 'user'; content: string | ChatUserPart[]; name?: string }
export interface ChatAssistantMessage {
  role: 'assistant';
  content?: string | (ChatTextPart | ChatRefusalPart)[] | null;
  refusal?: string | null;
  tool_calls?: ChatToolCall[];
  name?: string;
  /** Non-standard reasoning text (DeepSeek, vLLM, several compatible servers). */
  reasoning_content?: string | null;
  /** Deprecated single function call. */
  function_call?: { name: string; arguments: string } | null;
}
export interface ChatToolMessage { role: 'tool'; tool_call_id: string; content: string | ChatTextPart[] }
/** Deprecated predecessor of `tool`. */
export interface ChatFunctionMessage { role: 'function'; name: string; content: string | null }

export type ChatMessage = ChatSystemMessage | ChatUserMessage | ChatAssistantMessage | ChatToolMessage | ChatFunctionMessage;

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

export type ChatToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema?: Record<string, unknown>; strict?: boolean | null; description?: string } };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_completion_tokens?: number | null;
  /** Deprecated; reasoning models reject it. */
  max_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  /** Not part of the official API; accepted by several compatible servers. */
  top_k?: number | null;
  n?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  tools?: (ChatFunctionTool | { type: string; [k: string]: unknown })[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ChatResponseFormat;
  reasoning_effort?: string | null;
  user?: string;
  prompt_cache_key?: string;
  [field: string]: unknown;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null; audio_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null; [k: string]: number | null | undefined } | null;
  /** Some compatible servers (DeepSeek) report cache hits this way. */
  prompt_cache_hit_tokens?: number;
  /** Some gateways in front of messages-style models report cache writes this way. */
  cache_creation_input_tokens?: number;
}

export interface ChatResponseMessage {
  role: 'assistant';
  content: string | null;
  refusal?: string | null;
  tool_calls?: ChatToolCall[];
  reasoning_content?: string | null;
  /** OpenRouter's spelling of reasoning text. */
  reasoning?: string | null;
}

export interface ChatResponse {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: ChatResponseMessage; finish_reason: ChatFinishReason | null; logprobs?: unknown }[];
  usage?: ChatUsage | null;
  system_fingerprint?: string | null;
  service_tier?: string | null;
}

export interface ChatToolCallDelta {
  index?: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChatDelta {
  role?: 'assistant';
  content?: string | null;
  refusal?: string | null;
  tool_calls?: ChatToolCallDelta[];
  reasoning_content?: string | null;
  reasoning?: string | null;
}

export interface ChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: ChatDelta; finish_reason: ChatFinishReason | null; logprobs?: unknown }[];
  usage?: ChatUsage | null;
  system_fingerprint?: string | null;
}

export interface ChatErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** What the chat stream encoder yields: a chunk, an in-stream error object, or the final `[DONE]` marker. */
export type ChatStreamOut = ChatChunk | ChatErrorBody | '[DONE]';
