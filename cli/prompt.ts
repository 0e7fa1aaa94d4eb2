/**
 * Terminal input: questions (visible), passwords (no echo, raw mode) and all of stdin (for --password-stdin).
 * Prompts are written to stderr so that stdout carries only the command's result.
 */
import { createInterface } from 'node:readline/promises';
import { CliError } from './cli-error.ts';

export function isInteractive(): boolean {
  return Boolean(process.stdin.isTTY);
}

export async function ask(question: string, fallback?: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    const answer = (await rl.question(fallback ? `${question} [${fallback}]: ` : `${question}: `)).trim();
    return answer || fallback || '';
  } finally {
    rl.close();
  }
}

/** Reads a line without echoing it. Ctrl-C aborts the process (exit 130); Backspace edits. */
export function askHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(`${question}: `);
  return new Promise((resolve) => {
    let value = '';
    const wasRaw = stdin.isRaw;
    stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    const done = () => {
      stdin.setRawMode(wasRaw);
      stdin.off('data', onData);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          done();
          resolve(value);
          return;
        }
        if (ch === '\u0003') {
          done();
          process.exit(130);
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}

/** All of stdin, without the one trailing newline that `echo` or a file adds. */
export async function readStdin(what: string): Promise<string> {
  if (process.stdin.isTTY) throw new CliError('usage', `${what} is read from stdin, but stdin is a terminal: pipe it in, e.g. printf %s "$PASSWORD" | svc login --password-stdin …`);
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
