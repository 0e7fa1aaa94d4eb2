/** An injectable clock: tests pass their own so that windows, expiry and retention never wait for real time. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that tests move by hand. */
export class ManualClock implements Clock {
  #t: number;
  constructor(start: number | Date = Date.UTC(2026, 0, 15, 12, 0, 0)) {
    this.#t = typeof start === 'number' ? start : start.getTime();
  }
  now(): number {
    return this.#t;
  }
  advance(ms: number): void {
    this.#t += ms;
  }
  set(t: number | Date): void {
    this.#t = typeof t === 'number' ? t : t.getTime();
  }
}

/** RFC 3339 UTC with milliseconds, the one time format of the API. */
export function rfc3339(t: Date | number | null | undefined): string | null {
  if (t === null || t === undefined) return null;
  return new Date(t).toISOString();
}
