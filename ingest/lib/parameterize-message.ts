/**
 * Messages are parameterised before grouping, so that "User 42 not found" and "User 43 not found" are one
 * issue: e-mail addresses, URLs, UUIDs, IP addresses, dates and times, hex values and hashes, quoted values and
 * numbers become placeholders. Order matters (a URL holds numbers, a UUID holds hex).
 *
 * Only the first 2048 characters are considered: messages that differ only after that group together, and
 * every pattern stays linear on hostile input.
 */

const MAX_CHARS = 2048;

const RULES: Array<[RegExp, string | ((m: string) => string)]> = [
  [/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, '<email>'],
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi, '<url>'],
  [/\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, '<date>'],
  [/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g, '<ip>'],
  [/\b(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{1,4}\b/gi, (m) => (/\d/.test(m) && /[a-f]|:.*:.*:/i.test(m) ? '<ip>' : m)],
  [/\b[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?\b/gi, (m) => (/\d/.test(m) ? '<ip>' : m)],
  [/\b\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\b/g, '<time>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  [/\b[0-9a-f]{8,}\b/gi, (m) => (/\d/.test(m) ? '<hex>' : m)],
  [/(?<![\w\\])'[^'\n]{0,200}'(?!\w)/g, '<quoted>'],
  [/(?<![\w\\])"[^"\n]{0,200}"(?!\w)/g, '<quoted>'],
  [/(?<!\w)`[^`\n]{0,200}`(?!\w)/g, '<quoted>'],
  [/(?<![\w<.])-?\d+(?:\.\d+)*(?![\w>])/g, '<num>'],
];

export function parameterizeMessage(message: string): string {
  let s = message.length > MAX_CHARS ? message.slice(0, MAX_CHARS) : message;
  for (const [re, replacement] of RULES) {
    s = typeof replacement === 'string' ? s.replace(re, replacement) : s.replace(re, replacement);
  }
  return s.replace(/\s+/g, ' ').trim();
}
