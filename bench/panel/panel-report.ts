/**
 * The panel bench's figures as a section of docs/performance.md: what was measured on which engine and machine, one
 * table of the API calls the pages made (server-side p50/p95 against 300 ms) and one of the pages (navigation until
 * the data is visible against 500 ms, with where the time went), plus the panel's first load and size.
 */
import { f0 } from '../report-format.ts';
import type { Navigation } from './panel-pages.ts';

export interface ApiRow {
  call: string;
  pages: string[];
  ms: number[];
}

export interface PageRow {
  what: string;
  path: string;
  runs: Navigation[];
}

export interface PanelReport {
  heading: string;
  setup: string;
  api: ApiRow[];
  pages: PageRow[];
  firstLoad: number[];
  jsGzipKb: number;
  pageCount: number;
}

export const quantile = (xs: number[], p: number): number => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] : NaN);
const med = (xs: number[]) => quantile(xs, 0.5);
const met = (ok: boolean) => (ok ? 'met' : '**missed**');

export function renderPanelReport(r: PanelReport): string {
  const apiRows = r.api.map((a) => {
    const p95 = quantile(a.ms, 0.95);
    const by = a.pages.length === r.pageCount ? 'every page' : a.pages.join('; ');
    return `| \`${a.call}\` | ${by} | ${a.ms.length} | ${f0(med(a.ms))} | ${f0(p95)} | ${met(p95 < 300)} |`;
  });
  const pageRows = r.pages.map((p) => {
    const ms = p.runs.map((n) => n.ms);
    const p95 = quantile(ms, 0.95);
    const of = (k: keyof Navigation) => f0(med(p.runs.map((n) => n[k])));
    return `| ${p.what} | \`${p.path}\` | ${f0(med(ms))} | ${f0(p95)} | ${of('html')} · ${of('app')} · ${of('apiStart')}–${of('apiEnd')} | ${of('steps')} | ${met(p95 < 500)} |`;
  });
  const slow = r.api.filter((a) => quantile(a.ms, 0.95) >= 300).length + r.pages.filter((p) => quantile(p.runs.map((n) => n.ms), 0.95) >= 500).length;
  return [
    r.heading,
    '',
    r.setup,
    '',
    `First load of the sign-in page in a fresh browser profile (nothing cached): median ${f0(med(r.firstLoad))} ms, slowest ${f0(Math.max(...r.firstLoad))} ms (target 1 s); the panel's JavaScript is ${r.jsGzipKb.toFixed(0)} KB gzipped (target 200 KB).`,
    '',
    '| API call a page makes (ids elided) | made by | calls timed | p50 ms | p95 ms | < 300 ms p95 |',
    '|---|---|---|---|---|---|',
    ...apiRows,
    '',
    '| page | path | median ms | p95 ms | median ms from navigation start: document · app started · API calls first start–last end | API steps in a row | data < 500 ms (p95) |',
    '|---|---|---|---|---|---|---|',
    ...pageRows,
    '',
    slow === 0 ? 'Every call and every page met its target in this run.' : `${slow} figure(s) above missed the target in this run.`,
  ].join('\n');
}
