/**
 * A scripted "model" for the coding-agent tests: a two-step file hunt. The agent's working directory holds
 * `clue.txt`, which names the file that holds a secret word. When a request offers one of the agent's own tools to
 * read a file and carries no tool result yet, the model reads `clue.txt`; after that result, it reads the path the
 * clue names; after the second result, it answers with text that repeats what the tool returned. Requests without
 * such a tool (titles, summaries, probes) get a short text answer, so the agent's side traffic completes too.
 */
import type { FakeAnswer, FakePolicy, FakeRequestInfo } from '../fakes/fake-upstream.ts';

/** One way an agent reads a file: its tool name and the arguments that read `path` (relative to `dir`). */
export interface FileReader {
  tool: string;
  args(path: string, dir: string): Record<string, unknown>;
}

export const CLUE_FILE = 'clue.txt';

/** Where the clue points, relative to the working directory. */
export const SECRET_FILE = 'vault/secret.txt';

export function clueText(): string {
  return `The secret word is in ${SECRET_FILE}\n`;
}

/** The answer after the last step: the policy repeats the tool's output, so the secret word reaches the agent's output. */
export const FINAL_PREFIX = 'Found it. The file says:';

export function fileHuntPolicy(dir: string, readers: FileReader[]): FakePolicy {
  return (info: FakeRequestInfo) => {
    const reader = readers.find((r) => info.tools.includes(r.tool));
    const results = info.toolResults ?? [];
    const usage = { input: 40 + Math.ceil(info.lastUserText.length / 4), output: 12 };
    if (reader === undefined) return { text: 'Reading files', stop: 'end', usage };
    if (!info.lastIsToolResult && results.length === 0) return call(reader, CLUE_FILE, dir, 1, usage);
    if (info.lastIsToolResult && results.length === 1) {
      const next = /([\w./-]+\.txt)/.exec(results[0])?.[1] ?? SECRET_FILE;
      return call(reader, next, dir, 2, usage);
    }
    return { text: `${FINAL_PREFIX} ${results.at(-1)?.trim() ?? ''}`, stop: 'end', usage };
  };
}

function call(reader: FileReader, path: string, dir: string, step: number, usage: FakeAnswer['usage']): Partial<FakeAnswer> {
  return { text: undefined, toolCalls: [{ id: `call_hunt_${step}`, name: reader.tool, args: reader.args(path, dir) }], stop: 'tool_use', usage };
}
