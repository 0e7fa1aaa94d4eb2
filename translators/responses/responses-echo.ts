// What a response object repeats of its request (`instructions`, `tools`, `tool_choice`, `parallel_tool_calls`,
// `temperature`, `top_p`, `metadata`): the API's schema requires these fields, and clients show them. Taken from the
// client's decoded request; without one (a reply encoded on its own) they are null or neutral.
// @see https://platform.openai.com/docs/api-reference/responses/object

import type { Conversation } from '../model.ts';
import { encodeResponsesTools, encodeToolChoice } from './encode-responses-request.ts';
import type { ResponsesResponse } from './types.ts';

export type ResponsesEcho = Required<Pick<ResponsesResponse, 'instructions' | 'tools' | 'tool_choice' | 'parallel_tool_calls' | 'temperature' | 'top_p' | 'metadata'>>;

export function responsesEcho(request: Conversation | undefined): ResponsesEcho {
  if (request === undefined) {
    return { instructions: null, tools: [], tool_choice: 'auto', parallel_tool_calls: true, temperature: null, top_p: null, metadata: null };
  }
  const instructions = request.system.map((p) => p.text).filter((t) => t !== '').join('\n\n');
  const metadata = request.extras.responses?.metadata;
  return {
    instructions: instructions === '' ? null : instructions,
    tools: encodeResponsesTools(request),
    tool_choice: request.toolChoice !== undefined ? encodeToolChoice(request.toolChoice) : 'auto',
    parallel_tool_calls: request.parallelToolCalls ?? true,
    temperature: request.sampling.temperature ?? null,
    top_p: request.sampling.topP ?? null,
    metadata: typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? metadata as Record<string, string> : null,
  };
}
