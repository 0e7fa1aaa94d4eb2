/**
 * `data:` URLs: the chat and responses styles carry inline bytes as `data:<media type>;base64,<data>`, the messages
 * and generative-language styles as a media type plus base64 data.
 * @see https://www.rfc-editor.org/rfc/rfc2397
 */

export interface Base64Data {
  mediaType: string;
  data: string;
}

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*?);base64,(.*)$/s;

/** Splits a base64 data URL; undefined for any other URL (including non-base64 data URLs). */
export function parseDataUrl(url: string): Base64Data | undefined {
  if (!url.startsWith('data:')) return undefined;
  const m = DATA_URL.exec(url);
  if (m === null) return undefined;
  return { mediaType: m[1] === '' ? 'application/octet-stream' : m[1].toLowerCase(), data: m[3] };
}

export function toDataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}
