/**
 * A scripted "model" for the recorded sessions (issue 13): a debugging loop over a real source tree. The workspace
 * (makeDebugWorkspace in run-agent.ts) holds a copy of this repository's translators/ with their unit tests and
 * four planted bugs in four files (PLANTED_BUGS), and the task asks the agent to make the tests pass. The model then
 * does, with the agent's own tools (its shell tool for commands, its file-reading tool for reads; Codex CLI reads
 * with `cat`), what an engineer does on a failing suite: run the tests, read the failing test, run it alone, search, read the code and what it uses, fix
 * the line, run the directory's tests and the whole suite again, and move to the next failure. The script is fixed
 * in advance (DEBUG_LOOP); it was written before any recording, and not changed after the figures were seen:
 *
 * 0. `ls`
 * Round 1, messages usage (cache writes reported as the cache reads):
 * 1. run the whole suite; 2. read translators/messages/messages-response.test.ts; 3. run that file alone;
 * 4. grep `cache_creation_input_tokens`; 5. read encode-messages-response.ts; 6. read messages-usage.ts;
 * 7. read messages/types.ts; 8. read the other failing test, messages-stream-encoder.test.ts; 9. fix with `sed -i`;
 * 10. grep the fixed line; 11. run translators/messages; 12. run the whole suite.
 * Round 2, generative usage (thoughts left out of the output count):
 * 13. read convert-generative-usage.test.ts; 14. run it alone; 15. grep `thoughtsTokenCount`;
 * 16. read convert-generative-usage.ts; 17. read generative/types.ts; 18. read translators/model.ts;
 * 19. read decode-generative-response.ts; 20. fix with `sed -i`; 21. grep the fixed line; 22. run translators/generative;
 * 23. run the whole suite.
 * Round 3, responses usage (cached tokens no longer taken out of the input count):
 * 24. read responses-errors.test.ts (it holds the usage tests); 25. run it alone; 26. grep `cached_tokens`;
 * 27. read convert-responses-usage.ts; 28. read responses/types.ts; 29. read decode-responses-response.ts;
 * 30. read translators/usage.ts; 31. fix with `sed -i`; 32. grep the fixed line; 33. run translators/responses;
 * 34. run the whole suite.
 * Round 4, the messages stream decoder's fast path (an off-by-one that keeps the closing quote of a text delta):
 * 35. read messages-stream-decoder.test.ts; 36. run it alone; 37. grep `readTextDelta`; 38. read
 * messages-stream-decoder.ts; 39. read test/fixtures/messages/text.sse.txt; 40. read test/helpers/sse-fixtures.ts;
 * 41. run the file's readTextDelta tests (`-t`); 42. fix with `sed -i`; 43. grep the fixed line; 44. run the file;
 * 45. run the whole suite.
 * Wrap-up: 46. grep the callers of the four fixed functions; 47. read messages-stream-encoder.ts; 48. run the whole
 * suite a last time.
 *
 * Then the model answers with text that quotes, for each round, the first assertion that failed in the test file it
 * read, taken from the tool results themselves (from the run of that file alone: an agent may cut the long log of
 * the whole suite): the marked spans (FAILED_ASSERTIONS) come out of the agent only if the test logs went down and
 * came back up. Requests without the agent's tools (titles, summaries, probes) get a
 * short text answer, as in the file hunt. The test logs are what vitest prints without a terminal, with colours as it
 * decides them in the agent's shell (nothing forces them on or off).
 */
import type { FakeAnswer, FakePolicy, FakeRequestInfo } from '../fakes/fake-upstream.ts';
import type { FileReader } from './file-hunt-policy.ts';

/** One way an agent runs a shell command: its tool name and the arguments that run `command` in its directory. */
export interface ShellRunner {
  tool: string;
  args(command: string, description: string): Record<string, unknown>;
}

export type DebugStep =
  | { kind: 'shell'; command: string; description: string }
  | { kind: 'read'; path: string };

/** A planted bug: `good` is replaced by `bad` (exactly once) in `file` of the workspace. */
export interface PlantedBug {
  file: string;
  good: string;
  bad: string;
}

export const PLANTED_BUGS: PlantedBug[] = [
  // A copy-paste slip: the cache-write count encoded from the cache reads.
  { file: 'translators/messages/messages-usage.ts', good: 'cache_creation_input_tokens: u.cacheWriteTokens ?? 0', bad: 'cache_creation_input_tokens: u.cacheReadTokens ?? 0' },
  // A forgotten term: the thoughts no longer added to the output count.
  { file: 'translators/generative/convert-generative-usage.ts', good: 'outputTokens: count(meta.candidatesTokenCount) + thoughts,', bad: 'outputTokens: count(meta.candidatesTokenCount),' },
  // A forgotten subtraction: the cached tokens counted in the uncached input too.
  { file: 'translators/responses/convert-responses-usage.ts', good: 'usage.inputTokens = Math.max(input - (cached ?? 0), 0);', bad: 'usage.inputTokens = input;' },
  // An off-by-one: the text of a plain text delta keeps its closing quote.
  { file: 'translators/messages/messages-stream-decoder.ts', good: 'text: data.slice(from + 1, to - 1) }', bad: 'text: data.slice(from + 1, to) }' },
];

export const DEBUG_TASK = 'The unit tests of this project fail. Run them with `node_modules/.bin/vitest run`, find the causes and fix them, '
  + 'run the tests again until they all pass, and tell me which assertions failed.';

/** The test file read in each round, whose first failing assertion the answer quotes. */
const ROUND_TESTS = [
  'translators/messages/messages-response.test.ts',
  'translators/generative/convert-generative-usage.test.ts',
  'translators/responses/responses-errors.test.ts',
  'translators/messages/messages-stream-decoder.test.ts',
];

/**
 * The first failing assertion of each round's test file, as vitest prints it (after `AssertionError: `): the marked
 * spans. Each is quoted by the final answer, and each is in the test logs of every run where that bug was there.
 */
export const FAILED_ASSERTIONS = [
  "expected { id: 'msg_1', type: 'message', …(6) } to deeply equal { id: 'msg_1', type: 'message', …(6) }",
  'expected { inputTokens: 9, …(4) } to deeply equal { inputTokens: 9, …(4) }',
  "expected { source: 'reported', …(4) } to deeply equal { inputTokens: 40, …(4) }",
  "expected [ { type: 'text', …(1) } ] to deeply equal [ { type: 'text', …(1) } ]",
];

const VITEST = 'node_modules/.bin/vitest run';
const sh = (command: string, description: string): DebugStep => ({ kind: 'shell', command, description });
const read = (path: string): DebugStep => ({ kind: 'read', path });
/** The fix, as an engineer types it: the bad text replaced by the good (neither holds a slash, an ampersand, a star or a backslash). */
const sed = (bug: PlantedBug): DebugStep => sh(`sed -i 's/${bug.bad}/${bug.good}/' ${bug.file}`, `Fix ${bug.file}`);

/** The script, fixed in advance (see the top of this file). */
export const DEBUG_LOOP: DebugStep[] = [
  sh('ls', 'List the project'),
  // Round 1.
  sh(VITEST, 'Run the test suite'),
  read(ROUND_TESTS[0]),
  sh(`${VITEST} ${ROUND_TESTS[0]}`, 'Run the failing test file'),
  sh('grep -rn "cache_creation_input_tokens" translators', 'Search for the field'),
  read('translators/messages/encode-messages-response.ts'),
  read('translators/messages/messages-usage.ts'),
  read('translators/messages/types.ts'),
  read('translators/messages/messages-stream-encoder.test.ts'),
  sed(PLANTED_BUGS[0]),
  sh('grep -n "cache_creation_input_tokens" translators/messages/messages-usage.ts', 'Check the fix'),
  sh(`${VITEST} translators/messages`, 'Run the messages tests'),
  sh(VITEST, 'Run the test suite'),
  // Round 2.
  read(ROUND_TESTS[1]),
  sh(`${VITEST} ${ROUND_TESTS[1]}`, 'Run the failing test file'),
  sh('grep -rn "thoughtsTokenCount" translators', 'Search for the field'),
  read('translators/generative/convert-generative-usage.ts'),
  read('translators/generative/types.ts'),
  read('translators/model.ts'),
  read('translators/generative/decode-generative-response.ts'),
  sed(PLANTED_BUGS[1]),
  sh('grep -n "outputTokens" translators/generative/convert-generative-usage.ts', 'Check the fix'),
  sh(`${VITEST} translators/generative`, 'Run the generative tests'),
  sh(VITEST, 'Run the test suite'),
  // Round 3.
  read(ROUND_TESTS[2]),
  sh(`${VITEST} ${ROUND_TESTS[2]}`, 'Run the failing test file'),
  sh('grep -rn "cached_tokens" translators/responses', 'Search for the field'),
  read('translators/responses/convert-responses-usage.ts'),
  read('translators/responses/types.ts'),
  read('translators/responses/decode-responses-response.ts'),
  read('translators/usage.ts'),
  sed(PLANTED_BUGS[2]),
  sh('grep -n "inputTokens" translators/responses/convert-responses-usage.ts', 'Check the fix'),
  sh(`${VITEST} translators/responses`, 'Run the responses tests'),
  sh(VITEST, 'Run the test suite'),
  // Round 4.
  read(ROUND_TESTS[3]),
  sh(`${VITEST} ${ROUND_TESTS[3]}`, 'Run the failing test file'),
  sh('grep -rn "readTextDelta" translators', 'Search for the function'),
  read('translators/messages/messages-stream-decoder.ts'),
  read('test/fixtures/messages/text.sse.txt'),
  read('test/helpers/sse-fixtures.ts'),
  sh(`${VITEST} ${ROUND_TESTS[3]} -t readTextDelta`, 'Run the fast-path tests'),
  sed(PLANTED_BUGS[3]),
  sh('grep -n "data.slice(from + 1" translators/messages/messages-stream-decoder.ts', 'Check the fix'),
  sh(`${VITEST} ${ROUND_TESTS[3]}`, 'Run the fixed test file'),
  sh(VITEST, 'Run the test suite'),
  // Wrap-up.
  sh('grep -rn "encodeMessagesUsage\\|convertGenerativeUsage\\|convertResponsesUsage\\|readTextDelta" translators --include=*.ts', 'Find the callers'),
  read('translators/messages/messages-stream-encoder.ts'),
  sh(VITEST, 'Run the test suite'),
];

/** Removes terminal colour codes. */
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

/** The text of a tool result (generative-language results arrive as their JSON: every string in it). */
function resultText(result: string): string {
  if (!result.startsWith('{')) return result;
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  try {
    walk(JSON.parse(result));
  } catch {
    return result;
  }
  return strings.join('\n');
}

/** The first assertion that failed in `testFile`, found in the results (oldest first), or undefined. */
export function firstFailure(results: readonly string[], testFile: string): string | undefined {
  for (const r of results) {
    const lines = plain(resultText(r)).split('\n');
    const at = lines.findIndex((l) => l.includes('FAIL') && l.includes(`${testFile} >`));
    if (at < 0) continue;
    const assertion = lines.slice(at + 1).find((l) => l.startsWith('AssertionError: '));
    if (assertion !== undefined) return assertion.slice('AssertionError: '.length).trim();
  }
  return undefined;
}

export const DEBUG_FINAL_PREFIX = 'All tests pass now. The assertions that failed:';

/** `reader`: the agent's tool that reads a file; `shell`: its tool that runs a command. */
export function debugLoopPolicy(dir: string, shell: ShellRunner, reader: FileReader, script: readonly DebugStep[] = DEBUG_LOOP): FakePolicy {
  return (info: FakeRequestInfo) => {
    const usage = { input: 40 + Math.ceil(info.lastUserText.length / 4), output: 24 };
    if (!info.tools.includes(shell.tool) || !info.tools.includes(reader.tool)) return { text: 'Debugging the tests', stop: 'end', usage };
    const results = info.toolResults ?? [];
    const step = info.lastIsToolResult || results.length === 0 ? script[results.length] : undefined;
    if (step !== undefined) return call(step, dir, shell, reader, results.length + 1, usage);
    // Each round's file run alone prints its failures in order; the whole suite's log may come cut by the agent.
    const alone = (f: string) => results.filter((_r, i) => { const s = script[i]; return s?.kind === 'shell' && s.command === `${VITEST} ${f}`; });
    const quoted = ROUND_TESTS.map((f, i) => `${i + 1}. ${f}: ${firstFailure([...alone(f), ...results], f) ?? '(not found in the logs)'}`);
    return { text: `${DEBUG_FINAL_PREFIX}\n${quoted.join('\n')}\nFixed: ${PLANTED_BUGS.map((b) => b.file).join(', ')}.`, stop: 'end', usage };
  };
}

function call(step: DebugStep, dir: string, shell: ShellRunner, reader: FileReader, n: number, usage: FakeAnswer['usage']): Partial<FakeAnswer> {
  const [name, args] = step.kind === 'shell' ? [shell.tool, shell.args(step.command, step.description)] : [reader.tool, reader.args(step.path, dir)];
  return { text: undefined, toolCalls: [{ id: `call_debug_${n}`, name, args }], stop: 'tool_use', usage };
}
