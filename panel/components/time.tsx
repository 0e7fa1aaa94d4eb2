/** A time in the viewer's zone, with the UTC time on hover (title) and in the machine-readable datetime. */
import { fmtLocal, fmtRelative, fmtUtc } from './format.ts';

export function Time({ at, relative = false, empty = 'never' }: { at: string | null | undefined; relative?: boolean; empty?: string }) {
  if (!at) return <span>{empty}</span>;
  return (
    <time dateTime={at} title={fmtUtc(at)}>
      {relative ? fmtRelative(at) : fmtLocal(at)}
    </time>
  );
}
