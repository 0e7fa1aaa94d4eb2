/**
 * Grouping: which issue an event belongs to (DESIGN.md §4).
 *
 * Default components, first that applies:
 * 1. Exception: `type:<raised exception type>` plus `frame:<location>|<function>` for each of its (up to) 5
 *    in-app frames nearest the raise (grouping-frames.ts); no line or column numbers. When no frame is usable,
 *    the parameterised value stands in for the frames (`value:…`), so that a bare `Error` without a stack
 *    trace does not swallow every other one.
 * 2. Message (no exception, or only a synthetic one as captureMessage sends): the event's type and the message,
 *    as the family's rule says: `type:default` (the protocol's type of every event that is not an error; a
 *    change of a log call's level therefore never splits its issue, as in Sentry) and
 *    `message:<template, parameterised>` (parameterize-message.ts). The template (logentry.message) is used
 *    when there is one, so params never split groups.
 * 3. Neither: `fallback` with the level and transaction.
 *
 * A custom fingerprint (an array of strings) replaces the default; each `{{ default }}` (spacing and case free)
 * in it expands to the default components. A fingerprint of only `{{ default }}` is the default grouping.
 *
 * The hash is SHA-256 over the kind (default or custom) and the components, hex, first 32 characters.
 *
 * Grouping versions: until 2026-11 message events were grouped by `level:<level>` instead of the type. Such an
 * event also carries its hash under that rule (`legacyHash`), so that an issue stored under it keeps its group
 * (adopt-legacy-issues.ts re-keys it on its next event) instead of every message issue being split anew.
 */
import { hash } from 'node:crypto';
import type { GroupingInput } from './event-types.ts';
import { groupingFrames, mainException } from './grouping-frames.ts';
import { parameterizeMessage } from './parameterize-message.ts';

export { culpritOf, titleOf } from './event-title.ts';

export interface Fingerprint {
  /** 32 lowercase hex characters. */
  hash: string;
  /** What the hash was computed from, for display and debugging. */
  components: string[];
  /** The hash under the previous grouping version, when it differs (message events). */
  legacyHash?: string;
}

const DEFAULT_VARIABLE = /^\{\{\s*default\s*\}\}$/i;
const MESSAGE_TYPE = 'type:default';

export function fingerprintEvent(event: GroupingInput): Fingerprint {
  const current = fingerprintWith(event, defaultComponents);
  if (!current.components.includes(MESSAGE_TYPE)) return current;
  const legacy = fingerprintWith(event, legacyDefaultComponents).hash;
  return legacy === current.hash ? current : { ...current, legacyHash: legacy };
}

function fingerprintWith(event: GroupingInput, defaults: (event: GroupingInput) => string[]): Fingerprint {
  const custom = event.fingerprint;
  if (custom && custom.length > 0 && !(custom.length === 1 && DEFAULT_VARIABLE.test(custom[0]))) {
    const components: string[] = [];
    for (const part of custom) {
      if (DEFAULT_VARIABLE.test(part)) components.push(...defaults(event));
      else components.push(`custom:${part}`);
    }
    return { hash: hashOf('custom', components), components };
  }
  const components = defaults(event);
  return { hash: hashOf('default', components), components };
}

/** The default grouping components of an event (see the module header). */
export function defaultComponents(event: GroupingInput): string[] {
  return componentsWith(event, MESSAGE_TYPE);
}

/** The previous version's: a message event grouped by its level. */
function legacyDefaultComponents(event: GroupingInput): string[] {
  return componentsWith(event, `level:${event.level}`);
}

/** `messageKind`: the component that stands beside a message event's message. */
function componentsWith(event: GroupingInput, messageKind: string): string[] {
  const main = mainException(event.exceptions);
  if (main?.type) {
    const out = [`type:${main.type}`];
    const frames = groupingFrames(main);
    for (const f of frames) out.push(`frame:${f.location}|${f.function}`);
    if (frames.length === 0 && main.value) out.push(`value:${parameterizeMessage(main.value)}`);
    return out;
  }
  const message = event.messageTemplate ?? event.message ?? lastValue(event);
  if (message !== undefined && message.trim() !== '') {
    return [messageKind, `message:${parameterizeMessage(message)}`];
  }
  return ['fallback', `level:${event.level}`, `transaction:${event.transaction ?? ''}`];
}

function lastValue(event: GroupingInput): string | undefined {
  for (let i = event.exceptions.length - 1; i >= 0; i--) {
    const v = event.exceptions[i].value;
    if (v) return v;
  }
  return undefined;
}

function hashOf(kind: 'default' | 'custom', components: string[]): string {
  return hash('sha256', JSON.stringify([kind, components]), 'hex').slice(0, 32);
}
