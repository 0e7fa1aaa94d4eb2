/**
 * Runs one coding agent as a user would, in a fresh temporary HOME and working directory holding the file hunt
 * (file-hunt-policy.ts), with a clean environment: PATH, HOME, the agent's own variables, and a proxy that refuses
 * every connection (loopback excepted), so the agent cannot reach the internet and the test sees where it tried to.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FakeConnectProxy } from '../fakes/fake-connect-proxy.ts';
import type { FakePolicy } from '../fakes/fake-upstream.ts';
import { startGatewayEnv, type GatewayEnv } from '../gateway/gateway-env.ts';
import type { AgentLaunch, CodingAgent, LaunchOptions } from './coding-agents.ts';
import { PLANTED_BUGS } from './debug-loop-policy.ts';
import { CLUE_FILE, clueText, SECRET_FILE } from './file-hunt-policy.ts';

export interface AgentWorkspace {
  /** The directory that holds both of the others. */
  root: string;
  home: string;
  /** The working directory, holding the clue and the secret. */
  dir: string;
  secret: string;
  remove(): void;
}

export interface AgentResult {
  /** null when the run was killed at its time limit. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The gateway with its three fakes, and the proxy that keeps the agents off the internet. */
export interface AgentGateway {
  g: GatewayEnv;
  proxy: FakeConnectProxy;
  close(): Promise<void>;
}

export async function startAgentGateway(): Promise<AgentGateway> {
  const [g, proxy] = await Promise.all([startGatewayEnv(), new FakeConnectProxy({ refuse: true }).start()]);
  return { g, proxy, close: async () => void (await Promise.all([g.close(), proxy.close()])) };
}

/** From now on every fake answers by `policy`, with its calls and the proxy's record cleared. */
export function answerWith(env: AgentGateway, policy: FakePolicy): void {
  for (const f of [env.g.chat, env.g.messages, env.g.generative]) {
    f.reset();
    f.policy = policy;
  }
  env.proxy.targets.length = 0;
}

export const AGENT_TASK = `Read ${CLUE_FILE} in the current directory, follow it, and tell me the secret word.`;

/** This repository (its node_modules hold the agents). */
export const REPO = join(import.meta.dirname, '..', '..');

/** `sources`: files of this repository copied to the same relative paths (a real source tree to read). */
export function makeWorkspace(opts: { secret?: string; sources?: readonly string[] } = {}): AgentWorkspace {
  const root = mkdtempSync(join(tmpdir(), 'svc-agent-'));
  const home = join(root, 'home');
  const dir = join(root, 'work');
  const secret = opts.secret ?? `SECRET-${randomBytes(4).toString('hex').toUpperCase()}`;
  mkdirSync(home);
  mkdirSync(dirname(join(dir, SECRET_FILE)), { recursive: true });
  writeFileSync(join(dir, CLUE_FILE), clueText());
  writeFileSync(join(dir, SECRET_FILE), `${secret}\n`);
  for (const f of opts.sources ?? []) cpSync(join(REPO, f), join(dir, f));
  return { root, home, dir, secret, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * The debugging loop's workspace (debug-loop-policy.ts): this repository's translators/ with their unit tests and
 * what those import (core/sse.ts, the SSE test helper and its recorded streams), a node_modules whose packages are
 * links to this repository's (so that `node_modules/.bin/vitest run` works, while what vitest writes there, its
 * bundled config and its cache, stays in the workspace), and the planted bugs. The HOME's `.profile` puts this
 * Node first on the PATH, as a developer's own profile does: Codex CLI runs commands in a login shell, which starts
 * from the system's PATH and would otherwise find an older Node.
 */
export function makeDebugWorkspace(): AgentWorkspace {
  const root = mkdtempSync(join(tmpdir(), 'svc-agent-'));
  const home = join(root, 'home');
  const dir = join(root, 'work');
  mkdirSync(home);
  mkdirSync(dir);
  writeFileSync(join(home, '.profile'), `PATH="${dirname(process.execPath)}:$PATH"\n`);
  const copy = ['translators', 'core/sse.ts', 'test/helpers/sse-fixtures.ts', ...['chat', 'messages', 'generative', 'responses'].map((s) => `test/fixtures/${s}`)];
  for (const f of copy) cpSync(join(REPO, f), join(dir, f), { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  for (const entry of readdirSync(join(REPO, 'node_modules'))) {
    if (!entry.startsWith('.') || entry === '.bin') symlinkSync(join(REPO, 'node_modules', entry), join(dir, 'node_modules', entry));
  }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'translators', private: true, type: 'module', scripts: { test: 'vitest run' } }, null, 2)}\n`);
  writeFileSync(join(dir, 'vitest.config.ts'), [
    "import { defineConfig } from 'vitest/config';",
    '',
    "export default defineConfig({ test: { include: ['translators/**/*.test.ts'] } });",
    '',
  ].join('\n'));
  for (const bug of PLANTED_BUGS) {
    const path = join(dir, bug.file);
    const text = readFileSync(path, 'utf8');
    if (text.split(bug.good).length !== 2) throw new Error(`${bug.file}: the text to replace is not there exactly once`);
    writeFileSync(path, text.replace(bug.good, bug.bad));
  }
  return { root, home, dir, secret: '', remove: () => rmSync(root, { recursive: true, force: true }) };
}

export function launchAgent(agent: CodingAgent, ws: AgentWorkspace, o: Omit<LaunchOptions, 'home' | 'task'> & { task?: string; shell?: boolean }): AgentLaunch {
  return agent.launch({ task: AGENT_TASK, ...o, home: ws.home });
}

/** Runs the agent to its exit, or kills its whole process group after `timeoutMs`. */
export function runAgent(launch: AgentLaunch, ws: AgentWorkspace, proxyUrl: string, timeoutMs: number): Promise<AgentResult> {
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: ws.home,
    TMPDIR: ws.home,
    HTTPS_PROXY: proxyUrl,
    HTTP_PROXY: proxyUrl,
    NO_PROXY: '127.0.0.1,localhost',
    ...launch.env,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(launch.command, launch.args, { cwd: ws.dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
