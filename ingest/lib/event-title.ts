/**
 * An event's title and culprit, as issue lists show them.
 *
 * - Title: `Type: first line of the value` for the raised exception (the type alone when there is no value);
 *   for a message event (no exception, or only a synthetic one) the first line of the message; else
 *   `<unlabeled event>`. At most 200 characters.
 * - Culprit (as Sentry): the transaction when the event names one; else the in-app frame nearest the raise as
 *   `location in function` (see grouping-frames.ts for location and function, here with their case as sent);
 *   else the request URL; else ''. A culprit the SDK sent is kept instead (normalize-event.ts).
 */
import type { GroupingInput } from './event-types.ts';
import { groupingFrames, mainException } from './grouping-frames.ts';

const MAX_TITLE = 200;

export function titleOf(event: Pick<GroupingInput, 'exceptions' | 'message'>): string {
  const main = mainException(event.exceptions);
  if (main?.type) {
    const value = firstLine(main.value ?? '');
    return clip(value === '' ? main.type : `${main.type}: ${value}`);
  }
  const message = firstLine(event.message ?? syntheticValue(event) ?? '');
  return message === '' ? '<unlabeled event>' : clip(message);
}

export function culpritOf(event: Pick<GroupingInput, 'exceptions' | 'transaction'> & { url?: string }): string {
  if (event.transaction) return clip(event.transaction);
  // The raised exception's frames; for a message event, the capture site of its synthetic stack trace.
  const source = mainException(event.exceptions) ?? [...event.exceptions].reverse().find((e) => (e.stacktrace?.frames.length ?? 0) > 0);
  const [frame] = groupingFrames(source, 1, true);
  if (!frame) return clip(event.url ?? '');
  if (frame.location === '') return clip(frame.function);
  if (frame.function === '') return clip(frame.location);
  return clip(`${frame.location} in ${frame.function}`);
}

function syntheticValue(event: Pick<GroupingInput, 'exceptions'>): string | undefined {
  for (let i = event.exceptions.length - 1; i >= 0; i--) {
    const v = event.exceptions[i].value;
    if (v) return v;
  }
  return undefined;
}

function firstLine(s: string): string {
  const nl = s.indexOf('\n');
  return (nl === -1 ? s : s.slice(0, nl)).trim();
}

function clip(s: string): string {
  return s.length > MAX_TITLE ? `${s.slice(0, MAX_TITLE - 1)}…` : s;
}
