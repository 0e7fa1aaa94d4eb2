/**
 * The four client styles the playground speaks, each as the request it sends (exactly as a client of that style
 * would) and how its stream's events carry text and token counts.
 */
export type Style = 'chat-completions' | 'messages' | 'generative-language' | 'responses';

export interface PlaygroundInput {
  model: string;
  system: string;
  message: string;
  secret: string;
}

export interface StyleRequest {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export interface StreamPiece {
  text?: string;
  inputTokens?: number;
  outputTokens?: number;
  error?: string;
}

type Json = Record<string, unknown>;
const obj = (x: unknown): Json => (x && typeof x === 'object' ? (x as Json) : {});
const num = (x: unknown): number | undefined => (typeof x === 'number' ? x : undefined);

export const STYLES: Record<Style, { label: string; request(i: PlaygroundInput): StyleRequest; read(event: string, data: Json): StreamPiece }> = {
  'chat-completions': {
    label: 'OpenAI chat completions',
    request: (i) => ({
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${i.secret}` },
      body: { model: i.model, stream: true, stream_options: { include_usage: true }, messages: [...(i.system ? [{ role: 'system', content: i.system }] : []), { role: 'user', content: i.message }] },
    }),
    read: (_e, d) => {
      const u = obj(d.usage);
      const delta = obj(obj((d.choices as unknown[] | undefined)?.[0]).delta);
      return { text: typeof delta.content === 'string' ? delta.content : undefined, inputTokens: num(u.prompt_tokens), outputTokens: num(u.completion_tokens), error: d.error ? String(obj(d.error).message) : undefined };
    },
  },
  messages: {
    label: 'Anthropic messages',
    request: (i) => ({
      url: '/v1/messages',
      headers: { 'x-api-key': i.secret, 'anthropic-version': '2023-06-01' },
      body: { model: i.model, max_tokens: 1024, stream: true, ...(i.system ? { system: i.system } : {}), messages: [{ role: 'user', content: i.message }] },
    }),
    read: (e, d) => {
      if (e === 'content_block_delta') return { text: typeof obj(d.delta).text === 'string' ? (obj(d.delta).text as string) : undefined };
      if (e === 'message_start') return { inputTokens: num(obj(obj(d.message).usage).input_tokens) };
      if (e === 'message_delta') return { outputTokens: num(obj(d.usage).output_tokens) };
      if (e === 'error') return { error: String(obj(d.error).message) };
      return {};
    },
  },
  'generative-language': {
    label: 'Google generative language',
    request: (i) => ({
      url: `/v1beta/models/${encodeURIComponent(i.model)}:streamGenerateContent?alt=sse`,
      headers: { 'x-goog-api-key': i.secret },
      body: { ...(i.system ? { systemInstruction: { parts: [{ text: i.system }] } } : {}), contents: [{ role: 'user', parts: [{ text: i.message }] }] },
    }),
    read: (_e, d) => {
      const parts = obj(obj((d.candidates as unknown[] | undefined)?.[0]).content).parts as Json[] | undefined;
      const u = obj(d.usageMetadata);
      return { text: parts?.map((p) => (typeof p.text === 'string' ? p.text : '')).join('') || undefined, inputTokens: num(u.promptTokenCount), outputTokens: num(u.candidatesTokenCount) };
    },
  },
  responses: {
    label: 'OpenAI responses',
    request: (i) => ({
      url: '/v1/responses',
      headers: { authorization: `Bearer ${i.secret}` },
      body: { model: i.model, stream: true, ...(i.system ? { instructions: i.system } : {}), input: i.message },
    }),
    read: (e, d) => {
      if (e === 'response.output_text.delta') return { text: typeof d.delta === 'string' ? d.delta : undefined };
      if (e === 'response.completed') {
        const u = obj(obj(d.response).usage);
        return { inputTokens: num(u.input_tokens), outputTokens: num(u.output_tokens) };
      }
      if (e === 'error' || e === 'response.failed') return { error: String(obj(d.error ?? obj(d.response).error).message ?? 'The call failed.') };
      return {};
    },
  },
};
