/**
 * The stack trace of a stored event for people: each exception (the one raised first, then what caused it), its
 * frames most recent call first as a table (in-app marker, function, file:line:column). Frames in a stored event
 * run oldest → newest, as the SDKs send them; exception values run cause → raised.
 * @see https://develop.sentry.dev/sdk/data-model/event-payloads/exception/
 */
import { renderTable, type Column } from '../output.ts';

interface Frame {
  function?: string;
  module?: string;
  filename?: string;
  abs_path?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
}

interface ExceptionValue {
  type?: string;
  value?: string;
  stacktrace?: { frames?: Frame[] };
}

export interface StoredEvent {
  event_id: string;
  timestamp: string;
  release: string | null;
  environment: string | null;
  data?: { exception?: { values?: ExceptionValue[] }; message?: unknown; logentry?: { formatted?: string; message?: string } };
}

/** Frames shown per exception; --json has them all. */
export const MAX_FRAMES = 40;

const where = (f: Frame): string => {
  const file = f.filename ?? f.abs_path ?? f.module ?? '?';
  return f.lineno === undefined ? file : `${file}:${f.lineno}${f.colno === undefined ? '' : `:${f.colno}`}`;
};

const COLUMNS: Column<Frame>[] = [
  { title: 'app', value: (f) => (f.in_app ? '*' : ' ') },
  { title: 'function', value: (f) => f.function ?? '?' },
  { title: 'file:line', value: where },
];

const indent = (text: string) => text.split('\n').map((l) => (l ? `  ${l}` : l)).join('\n');

/** Lines for the terminal; empty when the event has no exception with frames. */
export function renderStackTrace(e: StoredEvent): string {
  const values = [...(e.data?.exception?.values ?? [])].reverse();
  if (!values.some((v) => v.stacktrace?.frames?.length)) return '';
  const out: string[] = [];
  values.forEach((v, i) => {
    out.push(`${i === 0 ? '' : 'Caused by '}${v.type ?? 'Error'}${v.value ? `: ${v.value}` : ''}`);
    const frames = [...(v.stacktrace?.frames ?? [])].reverse();
    if (frames.length === 0) {
      out.push('  (no frames)');
      return;
    }
    out.push(indent(renderTable(frames.slice(0, MAX_FRAMES), COLUMNS).text).trimEnd());
    if (frames.length > MAX_FRAMES) out.push(`  … ${frames.length - MAX_FRAMES} older frames (--json shows them all)`);
  });
  out.push('(most recent call first; * marks frames of the application)');
  return `${out.join('\n')}\n`;
}
