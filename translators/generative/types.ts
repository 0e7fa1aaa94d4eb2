// Wire types of the generative-language style (`/v1beta/models/{model}:generateContent`,
// `:streamGenerateContent`, `:countTokens`). Output is camelCase; input may also use snake_case, which
// `normalizeGenerativeRequest` rewrites before decoding.
// @see https://ai.google.dev/api/generate-content

/** JSON value as it travels on the wire (function args, responses, schemas). */
export type GenerativeJson = string | number | boolean | null | GenerativeJson[] | { [key: string]: GenerativeJson };
export type GenerativeObject = { [key: string]: GenerativeJson };

export type GenerativeRole = 'user' | 'model' | 'function';

export interface GenerativeInlineData {
  mimeType: string;
  /** Base64 bytes. */
  data: string;
}

export interface GenerativeFileData {
  mimeType?: string;
  fileUri: string;
}

export interface GenerativeFunctionCall {
  id?: string;
  name: string;
  args?: GenerativeObject;
}

export interface GenerativeFunctionResponse {
  id?: string;
  name: string;
  response: GenerativeObject;
}

/** One part; exactly one payload field is set. `thought` and `thoughtSignature` belong to the part. */
export interface GenerativePart {
  text?: string;
  inlineData?: GenerativeInlineData;
  fileData?: GenerativeFileData;
  functionCall?: GenerativeFunctionCall;
  functionResponse?: GenerativeFunctionResponse;
  /** Marks a thought summary (with `text`). */
  thought?: boolean;
  /** Opaque signature; may sit on a call part or on an empty trailing text part. */
  thoughtSignature?: string;
}

export interface GenerativeContent {
  role?: GenerativeRole;
  parts?: GenerativePart[];
}

export interface GenerativeFunctionDeclaration {
  name: string;
  description?: string;
  /** OpenAPI-subset schema (no $ref, oneOf, additionalProperties…). */
  parameters?: GenerativeObject;
  /** Full JSON Schema, the alternative to `parameters`. */
  parametersJsonSchema?: GenerativeJson;
}

export interface GenerativeTool {
  functionDeclarations?: GenerativeFunctionDeclaration[];
  /** Built-in tools (googleSearch, codeExecution, …) kept opaque. */
  [builtin: string]: GenerativeJson | GenerativeFunctionDeclaration[] | undefined;
}

export type GenerativeCallingMode = 'MODE_UNSPECIFIED' | 'AUTO' | 'ANY' | 'NONE' | 'VALIDATED';

export interface GenerativeToolConfig {
  functionCallingConfig?: {
    mode?: GenerativeCallingMode;
    allowedFunctionNames?: string[];
  };
}

export type GenerativeThinkingLevel = 'THINKING_LEVEL_UNSPECIFIED' | 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH';

export interface GenerativeThinkingConfig {
  /** -1 dynamic, 0 off (where allowed), otherwise a token budget. */
  thinkingBudget?: number;
  thinkingLevel?: GenerativeThinkingLevel;
  includeThoughts?: boolean;
}

export interface GenerativeGenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences?: string[];
  candidateCount?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseMimeType?: string;
  responseSchema?: GenerativeJson;
  responseJsonSchema?: GenerativeJson;
  thinkingConfig?: GenerativeThinkingConfig;
}

export interface GenerativeSafetySetting {
  category: string;
  threshold: string;
}

export interface GenerateContentRequest {
  /** Present in `:countTokens` `generateContentRequest` and some clients; the path names the model. */
  model?: string;
  contents: GenerativeContent[];
  systemInstruction?: GenerativeContent;
  tools?: GenerativeTool[];
  toolConfig?: GenerativeToolConfig;
  generationConfig?: GenerativeGenerationConfig;
  safetySettings?: GenerativeSafetySetting[];
  cachedContent?: string;
}

/** `:countTokens` body: either bare `contents` or a whole `generateContentRequest`. */
export interface GenerativeCountTokensRequest {
  contents?: GenerativeContent[];
  generateContentRequest?: GenerateContentRequest;
}

export interface GenerativeCountTokensResponse {
  totalTokens: number;
  cachedContentTokenCount?: number;
}

/** @see https://ai.google.dev/api/generate-content#FinishReason */
export type GenerativeFinishReason =
  | 'FINISH_REASON_UNSPECIFIED'
  | 'STOP'
  | 'MAX_TOKENS'
  | 'SAFETY'
  | 'RECITATION'
  | 'LANGUAGE'
  | 'OTHER'
  | 'BLOCKLIST'
  | 'PROHIBITED_CONTENT'
  | 'SPII'
  | 'MALFORMED_FUNCTION_CALL'
  | 'IMAGE_SAFETY'
  | 'UNEXPECTED_TOOL_CALL'
  | 'TOO_MANY_TOOL_CALLS'
  | 'IMAGE_PROHIBITED_CONTENT'
  | 'NO_IMAGE'
  | 'IMAGE_RECITATION'
  | 'IMAGE_OTHER'
  | 'CONTINUATION'
  | 'MALFORMED_RESPONSE';

export type GenerativeBlockReason =
  | 'BLOCKED_REASON_UNSPECIFIED'
  | 'SAFETY'
  | 'OTHER'
  | 'BLOCKLIST'
  | 'PROHIBITED_CONTENT'
  | 'IMAGE_SAFETY'
  | 'MODEL_ARMOR'
  | 'JAILBREAK';

export interface GenerativeSafetyRating {
  category: string;
  probability: string;
  blocked?: boolean;
}

export interface GenerativeCandidate {
  index?: number;
  content?: GenerativeContent;
  finishReason?: GenerativeFinishReason;
  finishMessage?: string;
  safetyRatings?: GenerativeSafetyRating[];
}

/** Cumulative in streams; early chunks may hold only `trafficType`. */
export interface GenerativeUsageMetadata {
  /** Includes cached tokens. */
  promptTokenCount?: number;
  /** Excludes thoughts. */
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  /** prompt + candidates + thoughts (+ tool-use prompt). */
  totalTokenCount?: number;
  trafficType?: string;
}

export interface GenerateContentResponse {
  candidates?: GenerativeCandidate[];
  promptFeedback?: { blockReason?: GenerativeBlockReason; blockReasonMessage?: string; safetyRatings?: GenerativeSafetyRating[] };
  usageMetadata?: GenerativeUsageMetadata;
  modelVersion?: string;
  responseId?: string;
  createTime?: string;
}

/** Google RPC status names used by the generative-language error body. */
export type GenerativeErrorStatus =
  | 'INVALID_ARGUMENT'
  | 'FAILED_PRECONDITION'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'RESOURCE_EXHAUSTED'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED'
  | 'CANCELLED'
  | 'UNKNOWN';

export interface GenerativeErrorBody {
  error: {
    code: number;
    message: string;
    status: GenerativeErrorStatus | string;
    details?: GenerativeObject[];
  };
}
