/**
 * A scripted "model" for the coding-agent tests: a file hunt. The agent's working directory holds `clue.txt`, which
 * names the file that holds a secret word. When a request offers one of the agent's own tools to read a file, the
 * model reads the files of its plan one per turn (a source tour first, if any, then `clue.txt`, then the path the
 * clue names); after the last result, it answers with text that repeats what the tool returned, so the secret word
 * comes out of the agent only if every call went down and every result came back up. Requests without such a tool
 * (titles, summaries, probes) get a short text answer, so the agent's side traffic completes too.
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

/** The path to read after these results (oldest first), or undefined when the hunt is over. */
function nextPath(tour: readonly string[], results: readonly string[]): string | undefined {
  if (results.length < tour.length) return tour[results.length];
  if (results.length === tour.length) return CLUE_FILE;
  if (results.length === tour.length + 1) return /([\w./-]+\.txt)/.exec(results[tour.length])?.[1] ?? SECRET_FILE;
  return undefined;
}

/** `tour`: files (relative to `dir`) read one by one before the clue, for longer recorded sessions. */
export function fileHuntPolicy(dir: string, readers: FileReader[], tour: readonly string[] = []): FakePolicy {
  return (info: FakeRequestInfo) => {
    const offered = readers.filter((r) => info.tools.includes(r.tool));
    const results = info.toolResults ?? [];
    const usage = { input: 40 + Math.ceil(info.lastUserText.length / 4), output: 12 };
    if (offered.length === 0) return { text: 'Reading files', stop: 'end', usage };
    // A new user turn with no result yet starts the hunt; a result continues it, each step with the next of the
    // agent's reading tools (so that each tool's call and result shape makes the round trip). A file read again is
    // read with the tool of its first read, as an agent re-reads a file the way it read it.
    const path = info.lastIsToolResult || results.length === 0 ? nextPath(tour, results) : undefined;
    const first = path === undefined ? -1 : tour.indexOf(path);
    const step = first >= 0 && first < results.length ? first : results.length;
    if (path !== undefined) return call(offered[step % offered.length], path, dir, results.length + 1, usage);
    return { text: `${FINAL_PREFIX} ${results.at(-1)?.trim() ?? ''}`, stop: 'end', usage };
  };
}

function call(reader: FileReader, path: string, dir: string, step: number, usage: FakeAnswer['usage']): Partial<FakeAnswer> {
  return { text: undefined, toolCalls: [{ id: `call_hunt_${step}`, name: reader.tool, args: reader.args(path, dir) }], stop: 'tool_use', usage };
}
