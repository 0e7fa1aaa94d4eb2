/** Runs the real `svc` command as a child process (node cli/svc.js …, the bin npm links) with a clean environment. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const SVC = fileURLToPath(new URL('../../cli/svc.js', import.meta.url));

export interface SvcResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** env is the whole environment of the child (plus PATH); nothing of the test runner's SVC_* leaks in. */
export function runSvc(args: string[], env: Record<string, string>, input?: string, command?: string): Promise<SvcResult> {
  return new Promise((resolve, reject) => {
    // With `command`, args are that program's (a wrapper that runs svc itself, e.g. in a pseudo-terminal).
    const child = spawn(command ?? process.execPath, command ? args : [SVC, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
