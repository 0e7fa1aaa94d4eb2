/**
 * The reporting script of one client key: svc-errors.js, minified once when this module loads, called with the
 * store URL of the key's project (`{public URL}/api/{project}/store/?sentry_key=…`). Under 2 KB (a test holds it to
 * that), with an ETag so that browsers and caches revalidate cheaply.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { minifyScript } from './minify-script.ts';

/** The minified function expression `(function(win,doc,url){…})`, computed once. */
export const SCRIPT_FUNCTION = minifyScript(readFileSync(new URL('./svc-errors.js', import.meta.url), 'utf8')).replace(/;?$/, '');

export const SCRIPT_MAX_BYTES = 2048;

export interface ReportingScript {
  body: string;
  etag: string;
}

export function storeUrl(publicUrl: string, projectId: number, publicKey: string): string {
  return `${publicUrl}/api/${projectId}/store/?sentry_key=${encodeURIComponent(publicKey)}`;
}

export function reportingScript(publicUrl: string, projectId: number, publicKey: string): ReportingScript {
  // JSON string syntax is JavaScript string syntax; `<` is escaped so the text can never close an inline <script>.
  const url = JSON.stringify(storeUrl(publicUrl, projectId, publicKey)).replaceAll('<', '\\u003c');
  const body = `${SCRIPT_FUNCTION}(window,document,${url});\n`;
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, etag };
}
