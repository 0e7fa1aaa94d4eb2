/**
 * The panel pages the bench opens, each with what "its data is visible" means there (the rows of its main table, the
 * stack trace, the chart drawn), and one measured navigation: the time from the navigation's start until that data is
 * in the page, plus the browser's own account of where the time went (Navigation and Resource Timing): the document,
 * the app started (DOMContentLoaded, after the module scripts ran), the API calls' first start and last end, and how
 * many of those calls ran one after another (a call that started only after another ended is one step later).
 *
 * The moment the data is there is taken inside the page: a script installed before the panel's own (watchData)
 * checks every page's condition on each DOM change and notes the first time it holds, on the page's clock. Waiting
 * from outside with a Playwright locator would not do: a locator polls at growing intervals (0, 20, 50, 100, 100,
 * then every 500 ms), so data that arrives a little late is seen up to half a second after it was shown.
 */
import type { Page } from 'playwright-core';

export interface PanelPage {
  what: string;
  path: string;
  /** The key of its condition in watchData. */
  data: string;
}

export interface Navigation {
  /** Milliseconds from the navigation's start (the page's clock) until the data is in the page. */
  ms: number;
  html: number;
  app: number;
  apiStart: number;
  apiEnd: number;
  /** The longest chain of API calls each started after the previous one ended. */
  steps: number;
}

export function panelPages(ids: { project: number; issue: string }): PanelPage[] {
  return [
    { what: 'overview', path: '/ai', data: 'overview' },
    { what: 'usage, 30 days by day', path: '/ai/usage?days=30', data: 'usage' },
    { what: 'usage, 7 days by hour', path: '/ai/usage?days=7&interval=hour', data: 'usage' },
    { what: 'keys', path: '/ai/keys', data: 'keys' },
    { what: 'accounts', path: '/ai/accounts', data: 'accounts' },
    { what: 'aliases', path: '/ai/aliases', data: 'aliases' },
    { what: 'prices', path: '/ai/prices', data: 'prices' },
    { what: 'issue list', path: `/errors?project=${ids.project}`, data: 'issues' },
    { what: 'issue list, text search', path: `/errors?project=${ids.project}&q=cart`, data: 'issues' },
    { what: 'issue', path: `/errors/issues/${ids.issue}`, data: 'issue' },
    { what: 'project: ingest chart, releases', path: `/errors/projects/${ids.project}`, data: 'project' },
  ];
}

/**
 * Runs in every new document before the panel's scripts (page.addInitScript): notes in window.__dataSeen the first
 * time each page's data is in the DOM. Self-contained: Playwright sends its source text.
 */
export function watchData(): void {
  const seen: Record<string, number> = {};
  (window as unknown as { __dataSeen: Record<string, number> }).__dataSeen = seen;
  const q = (s: string) => document.querySelector(s) !== null;
  const rows = (table: string) => q(`table[aria-label="${table}"] tbody tr`);
  const chart = (label: string) => q(`[role="img"][aria-label^="${label}"] canvas`);
  const text = (re: RegExp) => re.test(document.querySelector('main')?.textContent ?? '');
  const checks: Record<string, () => boolean> = {
    overview: () => rows('Top models') && rows('Top keys') && text(/accounts?, all active|\): (paused|needs sign-in|disabled)/),
    usage: () => rows('Usage by model') && chart('Calls per'),
    keys: () => rows('Gateway keys'),
    accounts: () => q('article[aria-labelledby^="acc-"]'),
    aliases: () => q('form[aria-label="Alias alias-000"]'),
    prices: () => rows('Prices'),
    issues: () => rows('Issues'),
    issue: () => q('ol[aria-label="Frames, most recent call first"] li') && chart('Events per hour'),
    project: () => rows('Releases') && chart('Events accepted'),
  };
  const check = () => {
    for (const [k, holds] of Object.entries(checks)) if (!(k in seen) && holds()) seen[k] = performance.now();
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
}

interface Timings {
  seen: number;
  html: number;
  app: number;
  api: Array<{ start: number; end: number }>;
}

/** Opens the page (watchData installed on its context), waits for its data, and reads the page's timings. */
export async function navigate(page: Page, baseUrl: string, pp: PanelPage): Promise<Navigation> {
  await page.goto(`${baseUrl}${pp.path}`);
  await page.waitForFunction((k) => k in (window as unknown as { __dataSeen: Record<string, number> }).__dataSeen, pp.data, { polling: 'raf' });
  const t = await page.evaluate((k): Timings => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const api = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((r) => new URL(r.name).pathname.startsWith('/api/'));
    return { seen: (window as unknown as { __dataSeen: Record<string, number> }).__dataSeen[k], html: nav.responseEnd, app: nav.domContentLoadedEventEnd, api: api.map((r) => ({ start: r.startTime, end: r.responseEnd })) };
  }, pp.data);
  const calls = t.api.filter((c) => c.end > 0 && c.end <= t.seen).sort((a, b) => a.start - b.start);
  const depth: number[] = [];
  for (const [i, c] of calls.entries()) depth.push(1 + Math.max(0, ...calls.slice(0, i).map((d, j) => (d.end <= c.start ? depth[j] : 0))));
  return {
    ms: t.seen, html: t.html, app: t.app,
    apiStart: calls.length ? calls[0].start : NaN,
    apiEnd: calls.length ? Math.max(...calls.map((c) => c.end)) : NaN,
    steps: Math.max(0, ...depth),
  };
}
