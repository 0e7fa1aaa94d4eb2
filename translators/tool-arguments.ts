/**
 * Tool-call arguments travel as JSON text (chat, responses) or as an object (messages, generative-language).
 * The model keeps both; these helpers convert without throwing.
 */

/** Parses argument text into an object; `{}` when it is empty or not a JSON object (as CLIProxyAPI does). */
export function parseToolArguments(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** The JSON text to send: the raw text when it is a valid JSON object, otherwise the object serialised. */
export function toolArgumentsText(args: Record<string, unknown>, raw: string): string {
  if (raw.trim() !== '') {
    try {
      if (isPlainObject(JSON.parse(raw))) return raw;
    } catch {
      // fall through to the parsed form
    }
  }
  return JSON.stringify(args);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
