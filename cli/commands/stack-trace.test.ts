import { describe, expect, it } from 'vitest';
import { MAX_FRAMES, renderStackTrace, type StoredEvent } from './stack-trace.ts';

const event = (values: unknown[]): StoredEvent => ({ event_id: 'e', timestamp: '2026-01-01T00:00:00Z', release: null, environment: null, data: { exception: { values } } as StoredEvent['data'] });

describe('renderStackTrace', () => {
  it('is empty for an event without frames', () => {
    expect(renderStackTrace(event([]))).toBe('');
    expect(renderStackTrace(event([{ type: 'Error', value: 'no frames' }]))).toBe('');
    expect(renderStackTrace({ event_id: 'e', timestamp: 't', release: null, environment: null })).toBe('');
  });

  it('falls back to abs_path, then module, and leaves out what is unknown', () => {
    const out = renderStackTrace(event([{ type: 'ValueError', stacktrace: { frames: [{ module: 'app.jobs', function: 'run' }, { abs_path: '/srv/a.py', lineno: 3 }] } }]));
    expect(out).toBe([
      'ValueError',
      '  APP  FUNCTION  FILE:LINE',
      '       ?         /srv/a.py:3',
      '       run       app.jobs',
      '(most recent call first; * marks frames of the application)',
      '',
    ].join('\n'));
  });

  it(`prints at most ${MAX_FRAMES} frames per exception, the newest`, () => {
    const frames = Array.from({ length: MAX_FRAMES + 5 }, (_, i) => ({ filename: 'f.js', function: `f${i}`, lineno: i + 1, in_app: true }));
    const lines = renderStackTrace(event([{ type: 'RangeError', value: 'deep', stacktrace: { frames } }])).split('\n');
    expect(lines[2]).toMatch(new RegExp(`^  \\*\\s+f${MAX_FRAMES + 4}\\s+f\\.js:${MAX_FRAMES + 5}$`));
    expect(lines).toContain('  … 5 older frames (--json shows them all)');
    expect(lines.filter((l) => l.startsWith('  *'))).toHaveLength(MAX_FRAMES);
  });
});
