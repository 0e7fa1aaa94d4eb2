/**
 * The web panel at the issue's scale (issue 12, "Speed and size"): a fresh database holding 100,000 usage records
 * (--usage N, rolled up as the leader's job keeps them) and 10,000 issues with 100,000 events in 20 releases
 * (--issues N, --events N), 20 keys, 6 provider accounts, 60 aliases and 120 price overrides, and a node
 * (--role all) in this process. Then, signed in as a superuser in headless Chromium (Debian's, driven by
 * playwright-core): each page opened --page-rounds times (10) from its URL until its data is visible; every API call
 * the pages made is collected from the node itself and each is timed again --rounds times (20), along with the calls
 * the pages make on a click (the 30-day chart, the next page, other groupings). Server-side times come from Node's
 * HTTP diagnostics channels (server-timing.ts). Targets: every call under 300 ms p95; every page's data under
 * 500 ms (p95 of its rounds).
 *
 * --engine server (default: a fresh database on DATABASE_URL's server), postgres (the embedded default, what
 * `npm start` uses without DATABASE_URL: a Postgres child process) or pglite (PGlite in this process, the embedded
 * default before). `--write` puts the figures into docs/performance.md (section panel, panel-pglite or
 * panel-postgres).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { BenchSuite } from '../run.ts';
import { numberOption } from '../options.ts';
import { freshDatabase } from '../fresh-database.ts';
import { writePerformanceSection } from '../performance-doc.ts';
import { createUsagePartitions, generateUsageRecords } from '../usage/generate-usage-records.ts';
import { startChildPostgres } from '../../core/db/child-postgres.ts';
import type { Db } from '../../core/db/db.ts';
import { createPgliteDb } from '../../core/db/pglite-db.ts';
import { seedIssues } from '../panel/seed-issues.ts';
import { seedConfig } from '../panel/seed-config.ts';
import { recordServerTimes } from '../panel/server-timing.ts';
import { navigate, panelPages, watchData } from '../panel/panel-pages.ts';
import { renderPanelReport, type ApiRow, type PageRow } from '../panel/panel-report.ts';
import { loadConfig } from '../../core/config.ts';
import { createLogger } from '../../core/logger.ts';
import { buildServer } from '../../server/build-server.ts';
import { openContext } from '../../server/open-context.ts';
import { rollUpUsage } from '../../control-plane/usage/roll-up-usage.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TOKEN = 'bench-admin-token-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';
const DAY = 86_400_000;
const CHROMIUM = '/usr/bin/chromium';
const ENGINES = {
  server: { section: 'panel', name: 'real Postgres (a fresh database on the machine\'s server)' },
  pglite: { section: 'panel-pglite', name: 'PGlite in process (the embedded default before the child Postgres)' },
  postgres: { section: 'panel-postgres', name: 'the embedded default, Postgres as a child process (what `npm start` uses without DATABASE_URL)' },
} as const;
type EngineId = keyof typeof ENGINES;

/** A call as the docs show it: ids, cursors and the project elided. */
const shown = (url: string) => url
  .replace(/projects\/\d+/, 'projects/{id}').replace(/issues\/[0-9a-f]{16}/, 'issues/{id}').replace(/events\/[0-9a-f]{32}/, 'events/{event_id}')
  .replace(/accounts\/acc_[0-9a-f]+/, 'accounts/{id}').replace(/([?&])project=\d+/, '$1project={id}').replace(/([?&])cursor=[^&]+/, '$1cursor={cursor}');

/** Where the engine's database is: a URL, or PGlite under the data directory. */
async function openEngine(engine: EngineId, dataDir: string): Promise<{ url: string; db?: Db; close(): Promise<void> }> {
  if (engine === 'pglite') return { url: '', db: await createPgliteDb(join(dataDir, 'pg')), close: async () => {} };
  if (engine === 'postgres') {
    const db = await startChildPostgres(join(dataDir, 'postgres'));
    return { url: db.url, close: () => db.stop() };
  }
  const fresh = await freshDatabase(process.env.DATABASE_URL!, 'svc_bench_panel');
  return { url: fresh.url, close: () => fresh.drop() };
}

const jsGzipKb = () => {
  const dir = join(ROOT, 'panel', 'dist', 'assets');
  return readdirSync(dir).filter((f) => f.endsWith('.js')).reduce((n, f) => n + gzipSync(readFileSync(join(dir, f)), { level: 9 }).length, 0) / 1024;
};

export const suite: BenchSuite = {
  name: 'panel',
  description: 'the web panel with 100k usage records and 10k issues: API calls per page (p95) and time to data in Chromium (--engine server|pglite|postgres)',
  async run(args) {
    const engine = (args.includes('--engine') ? args[args.indexOf('--engine') + 1] : 'server') as EngineId;
    if (!ENGINES[engine]) throw new Error(`--engine takes ${Object.keys(ENGINES).join(', ')}`);
    if (engine === 'server' && !process.env.DATABASE_URL) {
      process.stdout.write('skipped: --engine server needs DATABASE_URL (a Postgres server; a fresh database is made and dropped)\n');
      return;
    }
    const usage = numberOption(args, 'usage', 100_000);
    const issues = numberOption(args, 'issues', 10_000);
    const events = numberOption(args, 'events', 100_000);
    const rounds = numberOption(args, 'rounds', 20);
    const pageRounds = numberOption(args, 'page-rounds', 10);
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-panel-'));
    const db = await openEngine(engine, dataDir);
    const load = [loadavg()[0]];
    const config = loadConfig({
      DATABASE_URL: db.url, SVC_DATA_DIR: dataDir, SVC_ADMIN_TOKEN: TOKEN, SVC_SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789',
      PORT: '0', LOG_LEVEL: 'silent', SVC_REQUEST_LOG_SAMPLE: '0',
    });
    const ctx = await openContext(config, createLogger('silent'), { db: db.db });
    const server = await buildServer(ctx, 'all');
    const times = recordServerTimes();
    try {
      const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
        if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
        return res.json() as Promise<Record<string, unknown>>;
      };
      const now = Date.now();
      const t0 = performance.now();
      process.stdout.write(`  seeding ${usage} usage records, ${issues} issues, ${events} events on ${engine}…\n`);
      await createUsagePartitions(ctx.db, now - 31 * DAY, now);
      await generateUsageRecords(ctx.db, usage, now - 31 * DAY, now);
      await ctx.db.exec('VACUUM ANALYZE usage_records');
      await rollUpUsage(ctx.db, now);
      await api('POST', '/api/v1/teams', { name: 'shop' });
      const project = await api('POST', '/api/v1/projects?team=shop', { name: 'storefront' });
      await seedIssues(ctx.db, Number(project.id), issues, events, now);
      await api('POST', '/api/v1/users', { username: 'bench', password: PASSWORD, is_superuser: true });
      await seedConfig(api, 'shop');
      const issueList = await api('GET', `/api/v1/projects/${project.id}/issues?limit=100&hourly=24`);
      const issueId = (issueList.items as Array<{ id: string }>)[0].id;
      process.stdout.write(`  seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
      times.take();

      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
      const byCall = new Map<string, ApiRow & { url: string }>();
      const pageRows: PageRow[] = [];
      const firstLoad: number[] = [];
      try {
        for (let r = 0; r < 5; r++) {
          const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
          const page = await context.newPage();
          const s = performance.now();
          await page.goto(`${url}/sign-in`);
          await page.getByRole('button', { name: 'Sign in' }).waitFor();
          firstLoad.push(performance.now() - s);
          await context.close();
        }
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        await context.addInitScript(watchData);
        const page = await context.newPage();
        page.setDefaultTimeout(30_000);
        await page.goto(`${url}/ai`);
        await page.getByLabel('User name').fill('bench');
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${url}/ai`);
        await page.waitForLoadState('networkidle');
        times.take();
        for (const pp of panelPages({ project: Number(project.id), issue: issueId })) {
          const runs = [];
          for (let r = 0; r < pageRounds; r++) {
            runs.push(await navigate(page, url, pp));
            await page.waitForLoadState('networkidle');
          }
          pageRows.push({ what: pp.what, path: shown(pp.path), runs });
          for (const s of times.take().filter((x) => x.url.startsWith('/api/'))) {
            const call = `${s.method} ${shown(s.url)}`;
            const row = byCall.get(call) ?? { call, url: s.url, pages: [], ms: [] };
            if (!row.pages.includes(pp.what)) row.pages.push(pp.what);
            row.ms.push(s.ms);
            byCall.set(call, row);
          }
          process.stdout.write(`  page ${pp.what}: median ${runs.map((n) => n.ms).sort((a, b) => a - b)[Math.floor(runs.length / 2)].toFixed(0)} ms\n`);
        }
      } finally {
        await browser.close();
      }
      load.push(loadavg()[0]);

      // The calls the pages make on a click, then every call again on its own.
      const cursor = issueList.next_cursor as string;
      const clicks: Array<[string, string]> = [
        ['issue: 30-day chart', `/api/v1/issues/${issueId}?hours=720`],
        ['issue list: More issues', `/api/v1/projects/${project.id}/issues?state=unresolved&sort=last_seen&limit=100&hourly=24&cursor=${encodeURIComponent(cursor)}`],
        ['usage: by key, 90 days', '/api/v1/usage?days=90&interval=day&group_by=key'],
        ['usage: by account, 30 days', '/api/v1/usage?days=30&interval=day&group_by=account'],
        ['usage: by team, 30 days by hour', '/api/v1/usage?days=30&interval=hour&group_by=team'],
      ];
      for (const [what, path] of clicks) byCall.set(`GET ${shown(path)}`, { call: `GET ${shown(path)}`, url: path, pages: [what], ms: [] });
      for (const row of byCall.values()) {
        if (row.call.startsWith('GET ')) for (let r = 0; r < rounds; r++) await api('GET', row.url);
        row.ms.push(...times.take().filter((x) => x.url.startsWith('/api/')).map((x) => x.ms));
      }
      load.push(loadavg()[0]);

      const e = ENGINES[engine];
      const body = renderPanelReport({
        heading: `### At scale: ${engine === 'server' ? 'real Postgres' : engine === 'pglite' ? 'PGlite (the embedded default before)' : 'the embedded default (Postgres as a child process)'}`,
        setup: `\`npm run bench -- panel${engine === 'server' ? '' : ` --engine ${engine}`}\`, ${new Date().toISOString().slice(0, 10)}, on ${e.name}: ` +
          `${usage.toLocaleString('en-US')} usage records over 31 days (rolled up), ${issues.toLocaleString('en-US')} issues with ${events.toLocaleString('en-US')} events in one project, ` +
          `20 keys, 6 provider accounts, 60 aliases, 120 price overrides; one node (\`--role all\`) in the bench's process. ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; ` +
          `load average ${load.map((l) => l.toFixed(1)).join(' → ')} (start → after the pages → after the API rounds; other work shares the machine). ` +
          `Pages: opened from their URL ${pageRounds} times each, signed in (index.html revalidated, the hashed scripts cached): the time from the navigation's start until the page's data (its table rows, stack trace, chart) is in the page, taken by the page itself (bench/panel/panel-pages.ts). ` +
          `API: server-side time of each call (request parsed to response sent) while the pages ran, then ${rounds} more rounds of each; the calls a page makes on a click are timed in those rounds only.`,
        api: [...byCall.values()],
        pages: pageRows,
        firstLoad,
        jsGzipKb: jsGzipKb(),
        pageCount: pageRows.length,
      });
      process.stdout.write(`\n${body}\n`);
      if (args.includes('--write')) writePerformanceSection(ROOT, e.section, body, engine === 'server' ? undefined : 'panel');
    } finally {
      times.stop();
      await server.close();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
