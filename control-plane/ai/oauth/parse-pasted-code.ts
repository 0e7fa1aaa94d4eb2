/**
 * What a person pastes after signing in at a provider, turned into the authorization code and, when it carries one,
 * the state: the whole callback URL (`http://localhost:1455/auth/callback?code=…&state=…`, or the vendor's code page
 * URL), the `code#state` that Claude's code page shows, or the bare code. An `error=` callback (the person refused)
 * and anything else (HTML, text with spaces, a URL without a code) are refused with a sentence saying what to paste.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2
 */
import { svcError } from '../../../core/errors.ts';

export interface PastedCode {
  code: string;
  /** The state the paste carried, if any (checked against the sign-in's own). */
  state?: string;
}

/** Authorization codes are opaque but URL-safe: letters, digits and `-._~/+=` (Google's start with `4/`). */
const CODE = /^[A-Za-z0-9\-._~/+=]{6,4096}$/;
const STATE = /^[A-Za-z0-9\-._~]{1,512}$/;

function fromUrl(url: URL): PastedCode {
  const q = url.searchParams;
  // Some providers put the answer in the fragment.
  const h = new URLSearchParams(url.hash.replace(/^#/, ''));
  const error = q.get('error') ?? h.get('error');
  if (error) {
    const why = q.get('error_description') ?? h.get('error_description');
    throw svcError('oauth_access_denied', `The provider ended the sign-in with "${error.slice(0, 100)}"${why ? ` (${why.slice(0, 200)})` : ''}; start the sign-in again.`);
  }
  const code = q.get('code') ?? h.get('code');
  if (!code) throw svcError('oauth_callback_invalid', 'The pasted URL has no "code" parameter: paste the address the browser showed after you approved the sign-in, or only the code.');
  const state = q.get('state') ?? h.get('state') ?? undefined;
  return fromCode(code, state);
}

function fromCode(raw: string, state?: string): PastedCode {
  let code = raw.trim();
  let st = state;
  const hash = code.indexOf('#');
  if (hash >= 0) {
    // Claude's code page shows `code#state`.
    st ??= code.slice(hash + 1) || undefined;
    code = code.slice(0, hash);
  }
  if (!CODE.test(code)) throw svcError('oauth_callback_invalid', 'That does not look like an authorization code or a callback URL; paste the code the provider showed, or the whole address from the browser after approving.');
  if (st !== undefined && !STATE.test(st)) throw svcError('oauth_callback_invalid', 'The state in the pasted text is malformed; paste the code or the callback URL exactly as shown.');
  return st === undefined ? { code } : { code, state: st };
}

export function parsePastedCode(input: { code?: string; callback_url?: string }): PastedCode {
  const text = (input.callback_url ?? input.code ?? '').trim();
  if (text === '') throw svcError('oauth_callback_invalid', 'Send "code" (the authorization code) or "callback_url" (the whole address the browser showed after approving).');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw svcError('oauth_callback_invalid', 'The pasted text starts like a URL but is not one; paste the whole address from the browser.');
    }
    return fromUrl(url);
  }
  if (input.callback_url !== undefined) {
    // A query string pasted without its address still carries what we need.
    if (/(^|[?&])(code|error)=/.test(text)) return fromUrl(new URL(`http://callback/?${text.replace(/^\?/, '')}`));
    throw svcError('oauth_callback_invalid', '"callback_url" must be the whole address the browser showed after approving (starting with http:// or https://); or paste the code alone as "code".');
  }
  return fromCode(text);
}
