/**
 * What must survive a translation, as plain data to compare: the meaning of a request, of a reply, of a stream.
 * Differences every style is allowed (framing, where tool results sit, how usage splits the prompt) are
 * normalised away here; everything else must match exactly.
 */
import type { Conversation, Part, Reply, StopReason, StyleName, Usage } from '../../translators/model.ts';
import { parseDataUrl } from '../../translators/data-url.ts';
import { totalInputTokens } from '../../translators/usage.ts';

type Item = (string | number | boolean | object | undefined)[];

type IdOf = (id: string) => string;

/** Ids by order of first appearance: what must survive a hop that pairs results with calls by name and order. */
function pairingIds(): IdOf {
  const seen = new Map<string, string>();
  return (id) => {
    if (!seen.has(id)) seen.set(id, `#${seen.size}`);
    return seen.get(id) ?? id;
  };
}

function partItems(p: Part, side: 'user' | 'assistant', keepThinkingOf: StyleName | undefined, id: IdOf): Item[] {
  switch (p.type) {
    case 'text':
    case 'refusal':
      return p.text.trim() === '' ? [] : [[side, 'text', p.text]];
    case 'image': {
      const s = p.source;
      if (s.kind === 'url') {
        const inline = parseDataUrl(s.url);
        return [[side, 'image', inline ? `${inline.mediaType}:${inline.data}` : s.url]];
      }
      return [[side, 'image', s.kind === 'base64' ? `${s.mediaType}:${s.data}` : s.kind]];
    }
    case 'tool_call':
      return [[side, 'call', id(p.id), p.name, p.arguments]];
    case 'tool_result':
      return [[side, 'result', id(p.callId), p.content.map((c) => (c.type === 'text' ? c.text : c.type)).join('\n\n'), p.isError]];
    case 'thinking':
      return keepThinkingOf !== undefined && p.origin === keepThinkingOf ? [[side, 'thinking', p.text, p.signature]] : [];
    case 'redacted_thinking':
      return keepThinkingOf !== undefined && p.origin === keepThinkingOf ? [[side, 'redacted', p.data]] : [];
    default:
      return [[side, p.type]];
  }
}

/**
 * `keepThinkingOf`: the family whose signed thinking must survive (only when every hop is that family).
 * `pairedIds`: compare which result answers which call, not the ids themselves (a hop that cannot carry ids).
 */
export function requestMeaning(conv: Conversation, keepThinkingOf?: StyleName, pairedIds = false) {
  const id: IdOf = pairedIds ? pairingIds() : (x) => x;
  return {
    model: conv.model,
    system: conv.system.map((p) => p.text).join('\n\n'),
    items: conv.turns.flatMap((t) => t.parts.flatMap((p) => partItems(p, t.role === 'assistant' ? 'assistant' : 'user', keepThinkingOf, id))),
    tools: conv.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    toolChoice: conv.toolChoice,
    maxTokens: conv.sampling.maxTokens,
    temperature: conv.sampling.temperature,
    topP: conv.sampling.topP,
    stop: conv.sampling.stop,
  };
}

/** Stop reasons that some styles cannot tell apart collapse into one class. */
export function stopClass(r: StopReason): string {
  if (r === 'end' || r === 'stop_sequence' || r === 'pause') return 'end';
  if (r === 'content_filter' || r === 'refusal') return 'filtered';
  return r;
}

export function usageMeaning(u: Usage) {
  return { input: totalInputTokens(u) ?? 0, output: u.outputTokens ?? 0 };
}

export function replyMeaning(reply: Reply) {
  return {
    text: reply.parts.filter((p) => p.type === 'text').map((p) => (p.type === 'text' ? p.text : '')).join(''),
    thinking: reply.parts.filter((p) => p.type === 'thinking').map((p) => (p.type === 'thinking' ? p.text : '')).join(''),
    calls: reply.parts.flatMap((p) => (p.type === 'tool_call' ? [{ id: p.id, name: p.name, args: p.arguments }] : [])),
    stop: stopClass(reply.stopReason),
    usage: usageMeaning(reply.usage),
  };
}
