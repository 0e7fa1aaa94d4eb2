/**
 * What the real APIs refuse with 400, so that the fakes refuse it too: a gateway that sends a request the provider
 * would refuse must fail in the tests, not in production. Each function returns the provider's message, or undefined
 * when the request is acceptable. Only rules the providers document (or answer with) are here.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const blocksOf = (content: unknown): Obj[] => (Array.isArray(content) ? content.filter(isObj) : []);

/** Anthropic messages: max_tokens, thinking's sampling limits, every tool_use answered by the next message's tool_result. */
export function messagesRefusal(body: Obj, op: 'generate' | 'count'): string | undefined {
  if (op === 'generate' && typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  const thinking = isObj(body.thinking) && body.thinking.type !== 'disabled';
  if (thinking) {
    if (body.temperature !== undefined && body.temperature !== 1) return '`temperature` may only be set to 1 when thinking is enabled or in interleaved thinking mode.';
    if (body.top_k !== undefined) return '`top_k` must be unset when thinking is enabled.';
    if (typeof body.top_p === 'number' && body.top_p < 0.95) return '`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.';
  }
  const msgs = Array.isArray(body.messages) ? body.messages.filter(isObj) : [];
  for (let i = 0; i < msgs.length; i++) {
    const uses = msgs[i].role === 'assistant' ? blocksOf(msgs[i].content).filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : [];
    const next = msgs[i + 1];
    if (uses.length > 0 && next !== undefined) {
      const answered = new Set(blocksOf(next.content).filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)));
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length > 0) return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
    if (msgs[i].role === 'user') {
      const prev = new Set(i > 0 ? blocksOf(msgs[i - 1].content).filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : []);
      const stray = blocksOf(msgs[i].content).filter((b) => b.type === 'tool_result' && !prev.has(String(b.tool_use_id)));
      if (stray.length > 0) return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(stray[0].tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
  }
  return undefined;
}

/** OpenAI chat completions: a tool message answers a tool call of the assistant message before it; every call is answered. */
export function chatRefusal(body: Obj): string | undefined {
  const msgs = Array.isArray(body.messages) ? body.messages.filter(isObj) : [];
  let open = new Set<string>();
  for (const m of msgs) {
    if (m.role === 'tool') {
      if (!open.delete(String(m.tool_call_id))) return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      continue;
    }
    if (open.size > 0) return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
    open = new Set(m.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls.filter(isObj).map((c) => String(c.id)) : []);
  }
  return undefined;
}

/** OpenAI responses: a function_call_output answers a function_call earlier in the input. */
export function responsesRefusal(body: Obj): string | undefined {
  const items = Array.isArray(body.input) ? body.input.filter(isObj) : [];
  const calls = new Set<string>();
  for (const it of items) {
    if (it.type === 'function_call') calls.add(String(it.call_id));
    if (it.type === 'function_call_output' && !calls.has(String(it.call_id))) return `No tool call found for function call output with call_id ${String(it.call_id)}.`;
  }
  return undefined;
}

/** Gemini: a turn of function responses answers the function calls of the turn before it, one for one. */
export function generativeRefusal(body: Obj): string | undefined {
  const contents = Array.isArray(body.contents) ? body.contents.filter(isObj) : [];
  for (let i = 0; i < contents.length; i++) {
    const responses = blocksOf(contents[i].parts).filter((p) => isObj(p.functionResponse)).length;
    if (responses === 0) continue;
    const calls = i > 0 ? blocksOf(contents[i - 1].parts).filter((p) => isObj(p.functionCall)).length : 0;
    if (calls !== responses) return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
  }
  return undefined;
}
