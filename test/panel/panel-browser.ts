/**
 * What the panel's browser tests share: a current build of the panel (built here when panel/dist is missing or
 * older than the panel's sources), headless Chromium, an axe-core check (no serious or critical violation) and
 * screenshots into a temporary folder.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { PANEL_DIST } from '../../control-plane/panel/serve-panel.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PANEL = join(ROOT, 'panel');

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'dist' || e.name === 'node_modules') continue;
    const full = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const built = () => {
  const index = join(PANEL_DIST, 'index.html');
  return existsSync(index) && statSync(index).mtimeMs >= newestSource(PANEL);
};

/**
 * Builds the panel when its build is missing or stale. Test files run in parallel workers: a lock directory makes
 * one of them build while the others wait and then find the build fresh (a lock older than two minutes is stale).
 */
export async function ensurePanelBuilt(): Promise<void> {
  const lock = join(tmpdir(), `svc-panel-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
  while (!built()) {
    try {
      mkdirSync(lock);
    } catch {
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    try {
      if (built()) return;
      const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
      execFileSync(process.execPath, [vite, 'build', '--config', 'panel/vite.config.ts'], { cwd: ROOT, stdio: 'inherit', timeout: 120_000 });
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

const axeSource: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core on the page (injected through the debugging protocol, so the panel's CSP does not block it). */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad, `${what}: ${JSON.stringify(bad, null, 1)}`).toEqual([]);
}

export const screenshotDir = mkdtempSync(join(tmpdir(), 'svc-panel-shots-'));

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/** Signs in through the panel's form and waits for the page asked for. */
export async function signIn(page: Page, baseUrl: string, path: string, username: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.waitForURL(/\/sign-in\?next=/);
  await page.getByLabel('User name').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${baseUrl}${path}`);
}
