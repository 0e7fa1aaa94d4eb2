/**
 * The recorded part of the compression corpus: sessions of the real coding agents (Claude Code, Codex CLI, Gemini
 * CLI, Qwen Code: one per client style), each the last request the agent sent through the gateway in its own wire style, recorded by
 * `npm run agents:record-sessions` (test/agents/record-sessions.test.ts) into test/fixtures/agent-sessions/. The
 * system prompts, tool definitions and re-sending habits are the agents' own; the tasks are scripted by the fake
 * upstream: a file tour (this repository's translator sources, some read twice, then a two-step file hunt; a short
 * tour of 13 reads and a long one of 40), a debugging loop (test runs, reads, searches and fixes of four planted
 * bugs in a copy of the translators, 49 tool calls; test/agents/debug-loop-policy.ts), and the long tour's 40 reads
 * followed by the same loop (89 tool calls). Decoded into the internal model like any call to the gateway.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StyleName } from '../../translators/model.ts';
import { getStyle } from '../../translators/styles.ts';
import type { Session } from '../../test/compression/agent-session.ts';

export const RECORDED_DIR = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'agent-sessions');

export const RECORDED_TASKS = ['file tour', 'debugging loop', 'long tour, then debugging loop'] as const;
export type RecordedTask = (typeof RECORDED_TASKS)[number];

export interface RecordedSession extends Session {
  /** The agent and its version, e.g. "Claude Code 2.1.331". */
  name: string;
  style: StyleName;
  task: RecordedTask;
  /** The tool calls of the task, each answered by one result: a tour's reads and the hunt's two, or the loop's steps. */
  toolCalls: number;
  /** How the task is named in tables: "40 reads", "debugging loop". */
  label: string;
  /** The request as the agent sent it (the model of a generative-language request is in `conversation.model`). */
  request: unknown;
}

interface RecordedFile {
  agent: string;
  version: string;
  style: StyleName;
  model: string;
  /** A file tour's reads (files without `kind` are file tours). */
  tour?: string[];
  kind?: Exclude<RecordedTask, 'file tour'>;
  /** A debugging loop's steps (after the tour's reads, when it has one). */
  steps?: string[];
  spans: string[];
  request: unknown;
}

export function recordedSessions(dir = RECORDED_DIR): RecordedSession[] {
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => {
    const r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as RecordedFile;
    // A generative-language request names its model in the path, not the body.
    const conversation = { ...getStyle(r.style).decodeRequest(r.request), model: r.model };
    const base = { name: `${r.agent} ${r.version}`, style: r.style, request: r.request, conversation, spans: r.spans };
    if (r.kind !== undefined) return { ...base, task: r.kind, toolCalls: r.steps?.length ?? 0, label: r.kind };
    const reads = r.tour?.length ?? 0;
    return { ...base, task: 'file tour', toolCalls: reads + 2, label: `${reads} reads` };
  });
}
