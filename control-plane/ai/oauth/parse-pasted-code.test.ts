import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../../core/errors.ts';
import { parsePastedCode } from './parse-pasted-code.ts';

const codeOf = (input: { code?: string; callback_url?: string }) => {
  try {
    return parsePastedCode(input);
  } catch (e) {
    if (isSvcError(e)) return e.code;
    throw e;
  }
};

describe('parsePastedCode', () => {
  it('reads a callback URL with code and state', () => {
    expect(parsePastedCode({ callback_url: 'http://localhost:1455/auth/callback?code=ac_123456&scope=x&state=st-1' })).toEqual({ code: 'ac_123456', state: 'st-1' });
  });

  it('reads a whole URL pasted as the code, and a query string alone', () => {
    expect(parsePastedCode({ code: 'https://console.example/oauth/code/callback?code=abcdef&state=s2' })).toEqual({ code: 'abcdef', state: 's2' });
    expect(parsePastedCode({ callback_url: '?code=abcdef&state=s3' })).toEqual({ code: 'abcdef', state: 's3' });
  });

  it("splits Claude's code#state and keeps Google's slashes", () => {
    expect(parsePastedCode({ code: '  xyz123456#the-state \n' })).toEqual({ code: 'xyz123456', state: 'the-state' });
    expect(parsePastedCode({ code: '4/0AbCdEf-gh_ij' })).toEqual({ code: '4/0AbCdEf-gh_ij' });
  });

  it('refuses garbage, a URL without a code and a refused sign-in with clear codes', () => {
    expect(codeOf({ code: '<html><body>Authorization successful</body></html>' })).toBe('oauth_callback_invalid');
    expect(codeOf({ code: 'I could not find it' })).toBe('oauth_callback_invalid');
    expect(codeOf({ code: '' })).toBe('oauth_callback_invalid');
    expect(codeOf({ callback_url: 'http://localhost:1455/auth/callback?state=abc' })).toBe('oauth_callback_invalid');
    expect(codeOf({ callback_url: 'not a url at all' })).toBe('oauth_callback_invalid');
    expect(codeOf({ callback_url: 'http://localhost:1455/auth/callback?error=access_denied&state=x' })).toBe('oauth_access_denied');
  });
});
