/**
 * Parts → messages-style content blocks, shared by the request and response encoders.
 * Foreign signatures never reach the messages style: thinking without a messages-family signature is dropped from
 * requests (the upstream would reject it, §E6) and sent with an empty signature in responses to a client.
 */
import type { CacheMarker, DocumentPart, ImagePart, Part, ToolResultContent } from '../model.ts';
import { parseDataUrl } from '../data-url.ts';
import { sanitizeMessagesToolId } from '../tool-ids.ts';
import type {
  MessagesCacheControl, MessagesContentBlock, MessagesDocumentBlock, MessagesImageBlock, MessagesTextBlock, MessagesToolResultBlock,
} from './types.ts';

export function encodeCache(c: CacheMarker | undefined): { cache_control?: MessagesCacheControl } {
  return c === undefined ? {} : { cache_control: c.ttl ? { type: 'ephemeral', ttl: c.ttl } : { type: 'ephemeral' } };
}

/**
 * One part → one block for a request (`role` is the turn's role on the wire), or undefined when the part has no
 * place there. `forReply` keeps unsigned thinking (with an empty signature) for a client.
 */
export function encodeBlock(p: Part, role: 'user' | 'assistant', warnings: string[], forReply = false): MessagesContentBlock | undefined {
  switch (p.type) {
    case 'text':
      return p.text.trim() === '' ? undefined : { type: 'text', text: p.text, ...encodeCache(p.cache), ...(p.citations ? { citations: p.citations } : {}) };
    case 'refusal':
      return p.text.trim() === '' ? undefined : { type: 'text', text: p.text };
    case 'image':
      return encodeImage(p, warnings);
    case 'document':
      return encodeDocument(p, warnings);
    case 'audio':
      warnings.push('Audio is not supported by the messages style and was dropped.');
      return undefined;
    case 'tool_call':
      if (role !== 'assistant') return undefined;
      return { type: 'tool_use', id: sanitizeMessagesToolId(p.id), name: p.name, input: p.arguments, ...encodeCache(p.cache) };
    case 'tool_result':
      if (role !== 'user') return undefined;
      return encodeToolResult(p.callId, p.content, p.isError, p.cache, warnings);
    case 'thinking':
      if (role !== 'assistant') return undefined;
      if (p.origin === 'messages' && p.signature) return { type: 'thinking', thinking: p.text, signature: p.signature };
      return forReply && p.text !== '' ? { type: 'thinking', thinking: p.text, signature: '' } : undefined;
    case 'redacted_thinking':
      return role === 'assistant' && p.origin === 'messages' ? { type: 'redacted_thinking', data: p.data } : undefined;
  }
}

function encodeToolResult(
  callId: string, content: ToolResultContent[], isError: boolean, cache: CacheMarker | undefined, warnings: string[],
): MessagesToolResultBlock {
  const blocks = content
    .map((c) => (c.type === 'text' ? (c.text === '' ? undefined : textBlock(c.text, c.cache)) : c.type === 'image' ? encodeImage(c, warnings) : encodeDocument(c, warnings)))
    .filter((b) => b !== undefined);
  const out: MessagesToolResultBlock = { type: 'tool_result', tool_use_id: sanitizeMessagesToolId(callId), ...encodeCache(cache) };
  if (blocks.length === 1 && blocks[0].type === 'text' && blocks[0].cache_control === undefined) out.content = blocks[0].text;
  else if (blocks.length > 0) out.content = blocks;
  if (isError) out.is_error = true;
  return out;
}

function textBlock(text: string, cache: CacheMarker | undefined): MessagesTextBlock {
  return { type: 'text', text, ...encodeCache(cache) };
}

function encodeImage(p: ImagePart, warnings: string[]): MessagesImageBlock | undefined {
  const s = p.source;
  const cache = encodeCache(p.cache);
  if (s.kind === 'base64') return { type: 'image', source: { type: 'base64', media_type: s.mediaType, data: s.data }, ...cache };
  if (s.kind === 'url') {
    const inline = parseDataUrl(s.url);
    if (inline) return { type: 'image', source: { type: 'base64', media_type: inline.mediaType, data: inline.data }, ...cache };
    return { type: 'image', source: { type: 'url', url: s.url }, ...cache };
  }
  if (s.kind === 'file') return { type: 'image', source: { type: 'file', file_id: s.fileId }, ...cache };
  warnings.push('An image given as text cannot be sent in the messages style and was dropped.');
  return undefined;
}

function encodeDocument(p: DocumentPart, warnings: string[]): MessagesDocumentBlock | undefined {
  const s = p.source;
  const meta = {
    ...(p.title ? { title: p.title } : p.filename ? { title: p.filename } : {}),
    ...(p.context ? { context: p.context } : {}),
    ...(p.citations ? { citations: { enabled: true } } : {}),
    ...encodeCache(p.cache),
  };
  if (s.kind === 'base64') return { type: 'document', source: { type: 'base64', media_type: s.mediaType, data: s.data }, ...meta };
  if (s.kind === 'text') return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: s.text }, ...meta };
  if (s.kind === 'file') return { type: 'document', source: { type: 'file', file_id: s.fileId }, ...meta };
  const inline = parseDataUrl(s.url);
  if (inline) return { type: 'document', source: { type: 'base64', media_type: inline.mediaType, data: inline.data }, ...meta };
  if (/^https?:\/\//.test(s.url)) return { type: 'document', source: { type: 'url', url: s.url }, ...meta };
  warnings.push('A document URL that is not http(s) cannot be sent in the messages style and was dropped.');
  return undefined;
}
