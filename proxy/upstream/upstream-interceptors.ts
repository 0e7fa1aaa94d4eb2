/**
 * The undici interceptors an account's calls go through (STYLE.md a.7): each is
 * `dispatch => (opts, handler) => dispatch(opts', handler)`, composed once per account onto the origin's pool.
 * - basePath: the account's base URL may carry a path (`https://api.openai.com/v1`); calls name paths after it.
 * - accountAuth: the account's credentials replace the client's; provider defaults fill headers the client left out.
 */
import type { Dispatcher } from 'undici';

type Interceptor = Dispatcher.DispatcherComposeInterceptor;

export function basePath(prefix: string): Interceptor {
  return (dispatch) => (opts, handler) => dispatch(prefix === '' ? opts : { ...opts, path: prefix + opts.path }, handler);
}

export function accountAuth(auth: Record<string, string>, defaults: Record<string, string>): Interceptor {
  // Most calls pass the same (shared, never mutated) header object: its merge is kept for the next call.
  let lastIn: unknown;
  let lastOut: Record<string, string> = {};
  return (dispatch) => (opts, handler) => {
    if (opts.headers !== lastIn) {
      lastIn = opts.headers;
      lastOut = { ...defaults, ...(opts.headers as Record<string, string> | undefined), ...auth };
    }
    return dispatch({ ...opts, headers: lastOut }, handler);
  };
}
