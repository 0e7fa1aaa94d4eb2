/**
 * The reporting script in headless Chromium: pages served by a local test page server (another origin, as real
 * sites are) load /js/{key}.js from a listening svc server. A page that throws produces an issue; an unhandled
 * rejection too; `window.svcErrors.capture` reports a caught error; the 11th error of a page is not sent.
 * Skipped, with a message, when /usr/bin/chromium is missing.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { makeTeam } from '../api/access-fixtures.ts';
import { STORED_DOCUMENT } from '../ingest/support/ingest-helpers.ts';
import { createTeamProject, waitFor, type Project } from './support/errors-fixtures.ts';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`reporting-script browser tests skipped: ${CHROMIUM} is missing (install Debian's chromium package to run them)`);

describe.skipIf(!haveChromium)('the reporting script in Chromium', () => {
  let s: TestServer;
  let p: Project;
  let pages: Server;
  let pagesUrl = '';
  let browser: Browser;

  /** HTML pages by path; each loads the reporting script first. */
  const PAGES: Record<string, string> = {
    '/throws.html': `<script>function checkout() { throw new TypeError('cart is null'); } setTimeout(checkout, 0);</script>`,
    '/rejects.html': `<script>async function load() { throw new RangeError('quota exceeded'); } load();</script>`,
    '/capture.html': `<script>try { JSON.parse('{nope'); } catch (e) { window.captured = window.svcErrors.capture(e); }</script>`,
    '/many.html': `<script>for (let i = 0; i < 12; i++) setTimeout(function flood() { throw new Error('flood ' + i); }, 0);
      setTimeout(function () { window.after = window.svcErrors.capture(new Error('one more')); }, 50);</script>`,
  };

  beforeAll(async () => {
    s = await startTestServer({ listen: true });
    await makeTeam(s, 'browsers');
    p = await createTeamProject(s, 'browsers');
    pages = createServer((req, res) => {
      const body = PAGES[req.url ?? ''];
      if (!body) return res.writeHead(404).end();
      const tag = `<script src="${s.url}/js/${p.public_key}.js" data-release="web@2.0.0" data-environment="staging"></script>`;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head>${tag}</head><body>${body}</body></html>`);
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    const addr = pages.address();
    pagesUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (pages ? pages.close(() => resolve()) : resolve()));
    await s?.close();
  });

  /** Opens a page and counts the reports it sends (answered store requests). */
  async function open(path: string): Promise<{ page: Page; reports: () => number }> {
    const page = await browser.newPage();
    let reports = 0;
    page.on('requestfinished', (req) => {
      if (req.url().includes(`/api/${p.id}/store/`)) reports++;
    });
    await page.goto(`${pagesUrl}${path}`);
    return { page, reports: () => reports };
  }

  const eventsWithTitle = async (title: string) =>
    (await s.db.query<{ event_id: string; data: Record<string, unknown> }>(`SELECT event_id, ${STORED_DOCUMENT} FROM events WHERE project_id = $1 AND title = $2`, [p.id, title])).rows;

  it('serves a cacheable script under 2 KB', async () => {
    const res = await fetch(`${s.url}/js/${p.public_key}.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = res.headers.get('etag') as string;
    expect(Buffer.byteLength(await res.text())).toBeLessThan(2048);
    expect((await fetch(`${s.url}/js/${p.public_key}.js`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const missing = await fetch(`${s.url}/js/${'0'.repeat(32)}.js`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toMatch(/^\/\* svc errors: not_found: .* \*\/\n$/);
  });

  it('turns an uncaught error into an issue, with stack, URL, user agent, release and environment', async () => {
    const { page } = await open('/throws.html');
    const [ev] = await waitFor(async () => {
      const rows = await eventsWithTitle('TypeError: cart is null');
      return rows.length ? rows : undefined;
    });
    const stored = (await s.api('GET', `/api/v1/events/${ev.event_id}`)).json();
    expect(stored).toMatchObject({ release: 'web@2.0.0', environment: 'staging', level: 'error' });
    const data = JSON.stringify(stored.data);
    expect(data).toContain(`${pagesUrl}/throws.html`);
    expect(data).toContain('checkout');
    expect(data).toMatch(/HeadlessChrome|Chrome\//);
    const issues = (await s.api('GET', `/api/v1/projects/${p.id}/issues?q=cart%20is%20null`)).json().items;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ title: 'TypeError: cart is null', first_release: 'web@2.0.0', count: 1 });
    await page.close();
  });

  it('reports unhandled promise rejections and captured errors', async () => {
    const rejected = await open('/rejects.html');
    await waitFor(async () => (await eventsWithTitle('RangeError: quota exceeded')).length === 1);
    await rejected.page.close();

    const captured = await open('/capture.html');
    const id = await captured.page.evaluate(() => (window as unknown as { captured: string }).captured);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const [ev] = await waitFor(async () => {
      const r = await s.db.query<{ title: string }>('SELECT title FROM events WHERE project_id = $1 AND event_id = $2', [p.id, id]);
      return r.rows.length ? r.rows : undefined;
    });
    expect(ev.title).toMatch(/^SyntaxError: /);
    await captured.page.close();
  });

  it('sends at most 10 reports per page: the 11th error is not sent', async () => {
    const { page, reports } = await open('/many.html');
    await page.waitForFunction(() => 'after' in window);
    expect(await page.evaluate(() => (window as unknown as { after: unknown }).after)).toBe(false);
    await waitFor(async () => reports() >= 10);
    // Give a stray 11th report time to show up if there were one.
    await page.waitForTimeout(300);
    expect(reports()).toBe(10);
    await waitFor(async () => {
      const r = await s.db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND title LIKE 'Error: flood %'", [p.id]);
      return r.rows[0].n === 10;
    });
    await page.close();
  });
});
