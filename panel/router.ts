/**
 * A small router over the History API: the path is the state, so a deep link survives a reload (the server answers
 * index.html for the panel's paths). `navigate` pushes, `useRoute` re-renders on every change.
 */
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((fn) => fn()));

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  if (opts.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  listeners.forEach((fn) => fn());
  window.scrollTo(0, 0);
}

export interface Route {
  path: string;
  query: URLSearchParams;
}

const current = (): Route => ({ path: location.pathname.replace(/\/+$/, '') || '/', query: new URLSearchParams(location.search) });

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const fn = () => setRoute(current());
    listeners.add(fn);
    return () => void listeners.delete(fn);
  }, []);
  return route;
}

/** Matches "/errors/issues/:id" against a path; returns the parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.split('/');
  if (p.length !== s.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) out[p[i].slice(1)] = decodeURIComponent(s[i]);
    else if (p[i] !== s[i]) return null;
  }
  return out;
}

/** Intercepts clicks on same-origin links so they navigate without a page load (modifier keys open new tabs). */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener('click', (e) => {
    const a = (e.target as HTMLElement).closest('a');
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    if (a.target || a.hasAttribute('download') || a.origin !== location.origin) return;
    e.preventDefault();
    navigate(a.pathname + a.search);
  });
}
