/**
 * The web panel at the issue's scale (issue 12, "Speed and size"): a fresh database on DATABASE_URL's server holding
 * 100,000 usage records (--usage N) and 10,000 issues with 100,000 events (--issues N, --events N), a node (--role
 * all) in process, then (1) every API call the overview, usage, keys, accounts, issue list and issue pages make,
 * server side p50/p95 over --rounds, and (2) in headless Chromium (Debian's, driven by playwright-core) the time
 * from navigation to each page's data being visible, signed in as a superuser. `--write` puts the figures into
 * docs/performance.md. Targets: every call under 300 ms p95; every page's data under 500 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchSuite } from '../run.ts';
import { freshDatabase } from '../fresh-database.ts';
import { writePerformanceSection } from '../performance-doc.ts';
import { f0 } from '../report-format.ts';
import { generateUsageRecords } from '../usage/generate-usage-records.ts';
import { seedIssues } from '../panel/seed-issues.ts';
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

const option = (args: string[], name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
/** A path as the docs show it: ids replaced by their names. */
const shown = (path: string) => path.replace(/\?.*/, '').replace(/projects\/\d+/, 'projects/{id}').replace(/issues\/[0-9a-f]{16}/, 'issues/{id}').replace(/events\/[0-9a-f]{32}/, 'events/{event_id}');
const quantile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

export const suite: BenchSuite = {
  name: 'panel',
  description: 'the web panel with 100k usage records and 10k issues: API calls per page (p95) and time to data in Chromium (needs DATABASE_URL)',
  async run(args) {
    const base = process.env.DATABASE_URL;
    if (!base) {
      process.stdout.write('skipped: needs DATABASE_URL (a Postgres server; a fresh database is made and dropped)\n');
      return;
    }
    const usage = option(args, '--usage', 100_000);
    const issues = option(args, '--issues', 10_000);
    const events = option(args, '--events', 100_000);
    const rounds = option(args, '--rounds', 20);
    const fresh = await freshDatabase(base, 'svc_bench_panel');
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-panel-'));
    const load = [loadavg()[0]];
    const config = loadConfig({
      DATABASE_URL: fresh.url, SVC_DATA_DIR: dataDir, SVC_ADMIN_TOKEN: TOKEN, SVC_SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789',
      PORT: '0', LOG_LEVEL: 'silent', SVC_REQUEST_LOG_SAMPLE: '0',
    });
    const ctx = await openContext(config, createLogger('silent'));
    const server = await buildServer(ctx, 'all');
    try {
      const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
        if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
        return res.json() as Promise<Record<string, unknown>>;
      };
      const now = Date.now();
      process.stdout.write(`  seeding ${usage} usage records, ${issues} issues, ${events} events…\n`);
      await generateUsageRecords(ctx.db, usage, now - 31 * DAY, now);
      await ctx.db.exec('VACUUM ANALYZE usage_records');
      await rollUpUsage(ctx.db, now);
      await api('POST', '/api/v1/teams', { name: 'shop' });
      const project = await api('POST', '/api/v1/projects?team=shop', { name: 'storefront' });
      await seedIssues(ctx.db, Number(project.id), issues, events, now);
      await api('POST', '/api/v1/users', { username: 'bench', password: PASSWORD, is_superuser: true });
      for (let i = 0; i < 20; i++) await api('POST', '/api/v1/keys?team=shop', { name: `key-${i}` });
      const issueId = ((await api('GET', `/api/v1/projects/${project.id}/issues?limit=1`)).items as Array<{ id: string }>)[0].id;
      const eventId = ((await api('GET', `/api/v1/issues/${issueId}/events?limit=1`)).items as Array<{ event_id: string }>)[0].event_id;

      const calls: Array<[string, string]> = [
        ['overview, by model (30 days)', '/api/v1/usage?days=30&group_by=model'],
        ['overview, by key (30 days)', '/api/v1/usage?days=30&group_by=key'],
        ['usage, hourly (7 days)', '/api/v1/usage?days=7&group_by=model&interval=hour'],
        ['keys', '/api/v1/keys?limit=200'],
        ['accounts', '/api/v1/accounts?limit=200'],
        ['issue list with sparklines', `/api/v1/projects/${project.id}/issues?state=unresolved&sort=last_seen&limit=100&hourly=24`],
        ['issue list, text search', `/api/v1/projects/${project.id}/issues?q=cart&limit=100&hourly=24`],
        ['issue', `/api/v1/issues/${issueId}?hours=24`],
        ['issue events', `/api/v1/issues/${issueId}/events?limit=50`],
        ['latest event', `/api/v1/events/${eventId}?project=${project.id}`],
      ];
      const apiRows: string[] = [];
      for (const [what, path] of calls) {
        const ms: number[] = [];
        for (let r = 0; r < rounds; r++) {
          const t0 = performance.now();
          await api('GET', path);
          ms.push(performance.now() - t0);
        }
        const p95 = quantile(ms, 0.95);
        apiRows.push(`| ${what} | \`${shown(path)}\` | ${f0(quantile(ms, 0.5))} | ${f0(p95)} | ${p95 < 300 ? 'met' : '**missed**'} |`);
        process.stdout.write(`  ${what}: p50 ${f0(quantile(ms, 0.5))} ms, p95 ${f0(p95)} ms\n`);
      }
      load.push(loadavg()[0]);

      const pageRows: string[] = [];
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
      try {
        const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
        await page.goto(`${url}/ai`);
        await page.getByLabel('User name').fill('bench');
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${url}/ai`);
        const pages: Array<[string, string, (p: typeof page) => Promise<unknown>]> = [
          ['overview', '/ai', (p) => p.getByRole('table').first().waitFor()],
          ['usage (30 days)', '/ai/usage?days=30', (p) => p.getByRole('table').first().waitFor()],
          ['keys', '/ai/keys', (p) => p.getByRole('cell', { name: 'key-0', exact: true }).waitFor()],
          ['issue list', `/errors?project=${project.id}`, (p) => p.getByRole('table').first().waitFor()],
          ['issue', `/errors/issues/${issueId}`, (p) => p.getByText('total', { exact: false }).first().waitFor()],
        ];
        for (const [what, path, visible] of pages) {
          const ms: number[] = [];
          for (let r = 0; r < Math.max(3, Math.floor(rounds / 4)); r++) {
            const t0 = performance.now();
            await page.goto(`${url}${path}`);
            await visible(page);
            ms.push(performance.now() - t0);
          }
          const p50 = quantile(ms, 0.5);
          pageRows.push(`| ${what} | \`${shown(path)}\` | ${f0(p50)} | ${f0(Math.max(...ms))} | ${p50 < 500 ? 'met' : '**missed**'} |`);
          process.stdout.write(`  page ${what}: median ${f0(p50)} ms\n`);
        }
      } finally {
        await browser.close();
      }
      load.push(loadavg()[0]);

      const body = [
        '## Web panel at scale',
        '',
        `\`npm run bench -- panel\`, ${new Date().toISOString().slice(0, 10)}: ${usage.toLocaleString('en-US')} usage records over 31 days (rolled up), ` +
          `${issues.toLocaleString('en-US')} issues with ${events.toLocaleString('en-US')} events in one project, 20 keys; one node (\`--role all\`) ` +
          `on real Postgres, in process; ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; load average ${load.map((l) => l.toFixed(1)).join(' → ')} ` +
          '(other work shares the machine). API: wall time of each call on the loopback, ' + `${rounds} rounds. Pages: navigation until the page's data is visible in headless Chromium, signed in.`,
        '',
        '| API call a page makes | path | p50 ms | p95 ms | < 300 ms p95 |',
        '|---|---|---|---|---|',
        ...apiRows,
        '',
        '| page | path | median ms | slowest ms | data < 500 ms |',
        '|---|---|---|---|---|',
        ...pageRows,
      ].join('\n');
      process.stdout.write(`\n${body}\n`);
      if (args.includes('--write')) writePerformanceSection(ROOT, 'panel', body);
    } finally {
      await server.close();
      await fresh.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
