/**
 * The `exception` interface: `{values: [...]}`, a bare list, or (legacy) a single exception object.
 * Values stay ordered oldest → newest (the last is the raised one). A value with neither type, value nor
 * frames is dropped. Frames keep their known fields when well-typed and every unknown field as sent; a
 * stack trace longer than 250 frames keeps its first 50 and last 200 (the raise site matters most).
 * @see https://develop.sentry.dev/sdk/data-model/event-payloads/exception/
 */
import type { ExceptionMechanism, ExceptionValue, StackFrame, Stacktrace } from './event-types.ts';
import { isObject, readBoolean, readIdentifier, readText, readUint, readValues, unset, type DropFn, type Json } from './event-values.ts';

const MAX_VALUES = 25;
const MAX_FRAMES = 250;
const KEEP_HEAD = 50;
const MAX_VALUE_CHARS = 8192;

export function readExceptions(raw: unknown, drop: DropFn): ExceptionValue[] | undefined {
  if (raw === undefined || raw === null) return [];
  let list = readValues(raw);
  if (list === undefined && isObject(raw) && (raw.type !== undefined || raw.value !== undefined)) list = [raw];
  if (list === undefined) return undefined;
  const out: ExceptionValue[] = [];
  const start = Math.max(0, list.length - MAX_VALUES);
  for (let i = start; i < list.length; i++) {
    const e = readException(list[i], drop, `exception.values[${i}]`);
    if (e) out.push(e);
    else drop(`exception.values[${i}]`);
  }
  return out;
}

function readException(raw: unknown, drop: DropFn, path: string): ExceptionValue | undefined {
  if (!isObject(raw)) return undefined;
  const out: ExceptionValue = { ...raw };
  let removed = setOrDrop(out, 'type', raw.type, readIdentifier(raw.type, 256), drop, path);
  const value = isObject(raw.value) || Array.isArray(raw.value) ? safeJson(raw.value) : raw.value;
  removed = setOrDrop(out, 'value', raw.value, readText(value, MAX_VALUE_CHARS), drop, path) || removed;
  removed = setOrDrop(out, 'module', raw.module, readIdentifier(raw.module, 256), drop, path) || removed;
  removed = setOrDrop(out, 'mechanism', raw.mechanism, readMechanism(raw.mechanism), drop, path) || removed;
  removed = setOrDrop(out, 'stacktrace', raw.stacktrace, readStacktrace(raw.stacktrace, drop, `${path}.stacktrace`), drop, path) || removed;
  if (out.type === undefined && out.value === undefined && (out.stacktrace?.frames.length ?? 0) === 0) return undefined;
  return removed ? { ...out } : out;
}

function readMechanism(raw: unknown): ExceptionMechanism | undefined {
  if (!isObject(raw)) return undefined;
  const out: ExceptionMechanism = { ...raw };
  let removed = false;
  for (const key of ['handled', 'synthetic'] as const) {
    const b = readBoolean(raw[key]);
    if (b === undefined) removed = unset(out, key) || removed;
    else out[key] = b;
  }
  const type = readIdentifier(raw.type, 128);
  if (type === undefined) removed = unset(out, 'type') || removed;
  else out.type = type;
  return removed ? { ...out } : out;
}

export function readStacktrace(raw: unknown, drop: DropFn, path: string): Stacktrace | undefined {
  if (!isObject(raw) || !Array.isArray(raw.frames)) return undefined;
  let frames = raw.frames;
  if (frames.length > MAX_FRAMES) frames = [...frames.slice(0, KEEP_HEAD), ...frames.slice(frames.length - (MAX_FRAMES - KEEP_HEAD))];
  const out: StackFrame[] = [];
  for (const [i, f] of frames.entries()) {
    const frame = readFrame(f, drop, `${path}.frames[${i}]`);
    if (frame) out.push(frame);
    else drop(`${path}.frames[${i}]`);
  }
  return { ...raw, frames: out };
}

const FRAME_STRINGS = ['filename', 'abs_path', 'function', 'module', 'package', 'platform', 'context_line'] as const;

function readFrame(raw: unknown, drop: DropFn, path: string): StackFrame | undefined {
  if (!isObject(raw)) return undefined;
  const out: StackFrame = { ...raw };
  let removed = false;
  for (const key of FRAME_STRINGS) removed = setOrDrop(out, key, raw[key], readText(raw[key], 1024), drop, path) || removed;
  removed = setOrDrop(out, 'lineno', raw.lineno, readUint(raw.lineno), drop, path) || removed;
  removed = setOrDrop(out, 'colno', raw.colno, readUint(raw.colno), drop, path) || removed;
  removed = setOrDrop(out, 'in_app', raw.in_app, readBoolean(raw.in_app), drop, path) || removed;
  for (const key of ['pre_context', 'post_context'] as const) {
    const v = raw[key];
    const lines = Array.isArray(v) ? v.map((l) => (typeof l === 'string' ? l : '')) : undefined;
    removed = setOrDrop(out, key, v, lines, drop, path) || removed;
  }
  removed = setOrDrop(out, 'vars', raw.vars, isObject(raw.vars) ? raw.vars : undefined, drop, path) || removed;
  return removed ? { ...out } : out;
}

/**
 * Set `out[key]` to the clean value; when the raw value was present but unreadable, delete it and record it. True when
 * a key was removed (the reader then returns a plain copy: unset, event-values.ts).
 */
function setOrDrop<T extends Json, K extends keyof T & string>(out: T, key: K, raw: unknown, clean: T[K] | undefined, drop: DropFn, path: string): boolean {
  if (clean !== undefined) {
    out[key] = clean;
    return false;
  }
  if (raw !== undefined && raw !== null) drop(`${path}.${key}`);
  return unset(out, key);
}

function safeJson(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}

/**
 * Older protocols and some SDKs send the raised exception's frames outside it: at the event level (`stacktrace`,
 * Elixir's and the legacy Python clients') or in the `threads` interface (the exception names its `thread_id`).
 * As Sentry does, the frames are moved under the exception they belong to, so that grouping, the culprit and the
 * stack trace shown use them: an event-level stack trace goes to the only exception when it has none (with two
 * or more exceptions it is unclear which one it belongs to, and it stays where it was); a thread's stack trace
 * goes to the exception raised in that thread when that has none. Returns whether the event-level one was used.
 */
export function attachLooseStacktraces(exceptions: ExceptionValue[], raw: Json, drop: DropFn): boolean {
  let usedEventLevel = false;
  const [only] = exceptions;
  if (exceptions.length === 1 && !hasFrames(only) && isObject(raw.stacktrace)) {
    const st = readStacktrace(raw.stacktrace, drop, 'stacktrace');
    if (st && st.frames.length > 0) {
      only.stacktrace = st;
      usedEventLevel = true;
    }
  }
  const threads = readValues(raw.threads);
  if (!threads) return usedEventLevel;
  for (const e of exceptions) {
    if (hasFrames(e) || (typeof e.thread_id !== 'number' && typeof e.thread_id !== 'string')) continue;
    const i = threads.findIndex((t) => isObject(t) && t.id !== undefined && String(t.id) === String(e.thread_id));
    const thread = threads[i];
    if (!isObject(thread) || !isObject(thread.stacktrace)) continue;
    // `threads` is stored as sent: a frame left out of this copy is not a field dropped from the event.
    const st = readStacktrace(thread.stacktrace, () => {}, `threads.values[${i}].stacktrace`);
    if (st && st.frames.length > 0) e.stacktrace = st;
  }
  return usedEventLevel;
}

function hasFrames(e: ExceptionValue | undefined): boolean {
  return (e?.stacktrace?.frames.length ?? 0) > 0;
}
