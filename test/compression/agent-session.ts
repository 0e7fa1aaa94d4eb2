/**
 * A deterministic generator of coding-agent sessions in the internal model, for the compressor's tests and the
 * savings figures in docs/compression.md. Its parameters are written there and are not tuned to the compressor.
 *
 * A session is a task given by the user, then rounds of an assistant turn with one tool call (read a file, search,
 * run the tests, list a directory) and the tool's result, with a user remark every `userEvery` rounds. File reads
 * come from a fixed synthetic source tree and repeat an earlier read with probability `repeatRate` (agents read
 * the same file again after editing nearby, or to re-check); test runs print coloured progress, repeated log
 * lines and one failing test whose message later turns quote (a marked span).
 */
import type { Conversation, Part, ToolDef, Turn } from '../../translators/model.ts';
import { seededRandom } from '../support/seeded-random.ts';

export interface SessionParams {
  seed: number;
  /** Tool rounds (each is two turns: the call and its result). */
  rounds: number;
  /** Probability that a file read repeats an earlier read. */
  repeatRate: number;
  /** Lines of a source file: uniform in [min, max]. */
  fileLines: [number, number];
  /** Lines of a test log: uniform in [min, max]. */
  testLogLines: [number, number];
  /** A user remark every this many rounds. */
  userEvery: number;
}

export const DEFAULT_SESSION: SessionParams = {
  seed: 1, rounds: 60, repeatRate: 0.3, fileLines: [40, 400], testLogLines: [50, 600], userEvery: 8,
};

export interface Session {
  conversation: Conversation;
  /** Strings later turns depend on; every one must survive compression somewhere in the conversation. */
  spans: string[];
}

const WORDS = ['value', 'result', 'config', 'items', 'index', 'count', 'buffer', 'entry', 'request', 'options', 'state', 'limit'];

function sourceFile(path: string, lines: number, rand: () => number): string {
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) {
    const w = WORDS[Math.floor(rand() * WORDS.length)];
    const indent = '  '.repeat(Math.floor(rand() * 3));
    const code = rand() < 0.15 ? '' : `${indent}const ${w}${i} = compute${w[0].toUpperCase()}${w.slice(1)}(${w}, ${i}); // ${path}`;
    out.push(`${String(i).padStart(6)}\t${code}`);
  }
  return out.join('\n');
}

function testLog(lines: number, failing: string, rand: () => number): string {
  const out: string[] = ['\x1b[1m\x1b[36m RUN \x1b[39m\x1b[22m v3.2.4 /repo'];
  for (let i = 0; i < lines; i++) {
    const r = rand();
    if (r < 0.3) out.push('\x1b[32m ✓ \x1b[39m test/unit/case-' + Math.floor(rand() * 40) + '.test.ts (12 tests) 34ms');
    else if (r < 0.55) out.push('stdout | waiting for the database to accept connections…');
    else if (r < 0.7) out.push('progress 10%\rprogress 50%\rprogress 100%');
    else out.push(`   ${'debug'} pool: acquired connection ${Math.floor(rand() * 8)}`);
  }
  out.push(`\x1b[31m FAIL \x1b[39m test/unit/parser.test.ts > ${failing}`);
  out.push(`AssertionError: ${failing}: expected 3 to equal 4`);
  out.push(' Test Files  1 failed | 39 passed (40)');
  return out.join('\n');
}

function grepOutput(term: string, files: string[], rand: () => number): string {
  const out: string[] = [];
  for (const f of files) for (let i = 0; i < 1 + Math.floor(rand() * 6); i++) out.push(`${f}:${1 + Math.floor(rand() * 300)}:  const ${term} = read(${term});`);
  return out.join('\n');
}

const TOOLS: ToolDef[] = ['Read', 'Grep', 'Bash', 'LS'].map((name) => ({
  name, description: `The ${name} tool.`, parameters: { type: 'object', properties: {}, additionalProperties: true },
}));

export function generateSession(p: SessionParams = DEFAULT_SESSION): Session {
  const rand = seededRandom(p.seed);
  const pick = (range: [number, number]) => range[0] + Math.floor(rand() * (range[1] - range[0] + 1));
  const files = Array.from({ length: 30 }, (_, i) => `src/${WORDS[i % WORDS.length]}/${WORDS[(i * 7) % WORDS.length]}-${i}.ts`);
  const reads: { path: string; text: string }[] = [];
  const spans: string[] = [];
  const turns: Turn[] = [{ role: 'user', parts: [{ type: 'text', text: 'The parser tests fail since the last change; find out why and fix it. Run the tests when done.' }] }];
  for (let round = 0; round < p.rounds; round++) {
    const id = `call_${p.seed}_${round}`;
    const r = rand();
    let name: string;
    let args: Record<string, unknown>;
    let output: string;
    if (r < 0.5) {
      let read = reads.length > 0 && rand() < p.repeatRate ? reads[Math.floor(rand() * reads.length)] : undefined;
      if (read === undefined) {
        const path = files[Math.floor(rand() * files.length)];
        read = { path, text: sourceFile(path, pick(p.fileLines), rand) };
        reads.push(read);
      }
      name = 'Read';
      args = { file_path: read.path };
      output = read.text;
    } else if (r < 0.7) {
      const term = WORDS[Math.floor(rand() * WORDS.length)];
      name = 'Grep';
      args = { pattern: term };
      output = grepOutput(term, files.filter(() => rand() < 0.3), rand);
    } else if (r < 0.9) {
      const failing = `parses nested list ${round}`;
      spans.push(`AssertionError: ${failing}`);
      name = 'Bash';
      args = { command: 'npx vitest run' };
      output = testLog(pick(p.testLogLines), failing, rand);
    } else {
      name = 'LS';
      args = { path: 'src' };
      output = JSON.stringify({ entries: files.map((f) => ({ path: f, size: 100 + Math.floor(rand() * 9000), kind: 'file' })) }, null, 2);
    }
    const call: Part = { type: 'tool_call', id, name, arguments: args, argumentsText: JSON.stringify(args) };
    turns.push({ role: 'assistant', parts: [{ type: 'text', text: `Next I will use ${name}.` }, call] });
    const user: Part[] = [{ type: 'tool_result', callId: id, name, content: [{ type: 'text', text: output }], isError: false }];
    if ((round + 1) % p.userEvery === 0) user.push({ type: 'text', text: `Keep going; remember the failure "${spans[spans.length - 1] ?? 'none yet'}".` });
    turns.push({ role: 'user', parts: user });
  }
  const conversation: Conversation = {
    model: 'claude-sonnet-4-5', system: [{ type: 'text', text: 'You are a coding agent. Use the tools to read and change files.' }],
    turns, tools: TOOLS, sampling: { maxTokens: 1024 }, stream: false, extras: {}, warnings: [],
  };
  return { conversation, spans };
}
