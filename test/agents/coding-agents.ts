/**
 * How to run each pinned coding agent (devDependencies) against the gateway, with default settings except what keeps
 * it local: no telemetry, no update checks, no side traffic. Everything lives in a temporary HOME per run. The same
 * settings are documented in docs/gateway.md ("Coding agents").
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ShellRunner } from './debug-loop-policy.ts';
import type { FileReader } from './file-hunt-policy.ts';

export interface AgentLaunch {
  command: string;
  args: string[];
  /** The agent's own variables (the runner adds PATH, HOME and the proxy guard). */
  env: Record<string, string>;
}

export interface LaunchOptions {
  /** The temporary HOME, where the agent's configuration is written. */
  home: string;
  /** The gateway's base URL, without a path. */
  gateway: string;
  /** A gateway key, sk-svc-…. */
  key: string;
  model: string;
  /** A second model for side calls (titles, summaries), where the agent has one. */
  smallModel: string;
  task: string;
  /**
   * The task runs commands that change the workspace (tests, edits): the agent is launched so that it may run its
   * shell tool without asking. Off, it is launched as for the file hunt (reads only).
   */
  shell?: boolean;
}

export interface CodingAgent {
  name: string;
  /** A file-name-safe name. */
  id: string;
  /** The npm package (a pinned devDependency). */
  package: string;
  /** The wire style the agent speaks to the gateway. */
  style: 'messages' | 'responses' | 'generative' | 'chat';
  /** The agent's own tools that read a file; the scripted model uses them in turn. */
  readers: FileReader[];
  /** The agent's own tool that runs a shell command in its working directory (for the debugging loop). */
  shell?: ShellRunner;
  launch(o: LaunchOptions): AgentLaunch;
}

const require = createRequire(import.meta.url);

/** A file of an installed package (through Node, so the platform binaries' wrappers find their packages). */
function packageFile(pkg: string, file: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), file);
}

export function agentVersion(agent: CodingAgent): string {
  return (JSON.parse(readFileSync(packageFile(agent.package, 'package.json'), 'utf8')) as { version: string }).version;
}

export const claudeCode: CodingAgent = {
  name: 'Claude Code',
  id: 'claude-code',
  package: '@anthropic-ai/claude-code',
  style: 'messages',
  readers: [
    { tool: 'Read', args: (path, dir) => ({ file_path: join(dir, path) }) },
    { tool: 'Bash', args: (path) => ({ command: `cat ${path}`, description: `Print ${path}` }) },
  ],
  shell: { tool: 'Bash', args: (command, description) => ({ command, description }) },
  launch: (o) => ({
    command: process.execPath,
    // As root, --dangerously-skip-permissions is refused: allow the tools the task needs instead.
    args: [packageFile(claudeCode.package, 'cli-wrapper.cjs'), '-p', o.task, '--allowedTools', 'Read', 'Bash'],
    env: {
      ANTHROPIC_BASE_URL: o.gateway,
      ANTHROPIC_API_KEY: o.key,
      ANTHROPIC_MODEL: o.model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: o.smallModel,
      // Telemetry, error reporting, the auto-updater and feedback: off.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
  }),
};

export const codexCli: CodingAgent = {
  name: 'Codex CLI',
  id: 'codex-cli',
  package: '@openai/codex',
  style: 'responses',
  readers: [{ tool: 'exec_command', args: (path) => ({ cmd: `cat ${path}` }) }],
  shell: { tool: 'exec_command', args: (command) => ({ cmd: command }) },
  launch: (o) => {
    const codexHome = join(o.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    // wire_api "chat" is refused by this version ("no longer supported"): responses is the only wire.
    writeFileSync(join(codexHome, 'config.toml'), [
      `model = "${o.model}"`,
      'model_provider = "svc"',
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      // Plugins and apps reach out to chatgpt.com and github.com at start.
      '[features]',
      'plugins = false',
      'apps = false',
      '',
      '[model_providers.svc]',
      'name = "svc"',
      `base_url = "${o.gateway}/v1"`,
      'env_key = "SVC_API_KEY"',
      'wire_api = "responses"',
      '',
    ].join('\n'));
    return {
      command: process.execPath,
      // The default sandbox is read-only: a task that runs the tests and edits files gets the workspace to write in.
      args: [packageFile(codexCli.package, 'bin/codex.js'), 'exec', '--skip-git-repo-check', ...(o.shell ? ['--sandbox', 'workspace-write'] : []), o.task],
      env: { CODEX_HOME: codexHome, SVC_API_KEY: o.key },
    };
  },
};

/**
 * The settings file of Gemini CLI and of its fork Qwen Code (`<home>/<folder>/settings.json`): the sign-in kind, and
 * no usage statistics, telemetry or update checks. Their tools are the same too: `read_file`, `run_shell_command`.
 */
function writeGeminiSettings(home: string, folder: string, selectedType: string): void {
  const dir = join(home, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({
    security: { auth: { selectedType } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  }));
}
const geminiReaders: FileReader[] = [{ tool: 'read_file', args: (path, dir) => ({ file_path: join(dir, path) }) }];
const geminiShell: ShellRunner = { tool: 'run_shell_command', args: (command, description) => ({ command, description }) };

export const geminiCli: CodingAgent = {
  name: 'Gemini CLI',
  id: 'gemini-cli',
  package: '@google/gemini-cli',
  style: 'generative',
  readers: geminiReaders,
  shell: geminiShell,
  launch: (o) => {
    // With GOOGLE_GEMINI_BASE_URL alone the CLI picks a "gateway" auth type that its own check then refuses.
    writeGeminiSettings(o.home, '.gemini', 'gemini-api-key');
    return {
      command: process.execPath,
      // Without a terminal to ask in, the shell tool is offered only when every call is approved in advance.
      args: [packageFile(geminiCli.package, 'bundle/gemini.js'), '-m', o.model, '-p', o.task, ...(o.shell ? ['--approval-mode', 'yolo'] : [])],
      env: { GOOGLE_GEMINI_BASE_URL: o.gateway, GEMINI_API_KEY: o.key, GEMINI_CLI_TRUST_WORKSPACE: 'true' },
    };
  },
};

/** A chat-completions agent (a fork of Gemini CLI), so that the gateway's fourth client style has a real agent too. */
export const qwenCode: CodingAgent = {
  name: 'Qwen Code',
  id: 'qwen-code',
  package: '@qwen-code/qwen-code',
  style: 'chat',
  readers: geminiReaders,
  shell: geminiShell,
  launch: (o) => {
    writeGeminiSettings(o.home, '.qwen', 'openai');
    return {
      command: process.execPath,
      // As Gemini CLI: without a terminal to ask in, the shell tool is offered only when every call is approved.
      args: [packageFile(qwenCode.package, 'cli-entry.js'), '-m', o.model, '--auth-type', 'openai', ...(o.shell ? ['--approval-mode', 'yolo'] : []), o.task],
      env: { OPENAI_BASE_URL: `${o.gateway}/v1`, OPENAI_API_KEY: o.key, OPENAI_MODEL: o.model },
    };
  },
};

export const CODING_AGENTS = [claudeCode, codexCli, geminiCli, qwenCode];
