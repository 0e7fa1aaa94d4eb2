import { describe, expect, it } from 'vitest';
import { svcError } from '../../core/errors.ts';
import { parseEnvelope } from './parse-envelope.ts';
import {
  ITEM_TYPES, classifyItem, classifyItems, classifyStoreEvent, invalid, invalidFromError, outcomeLabel, rateLimited,
  type ItemOutcome,
} from './item-outcome.ts';
import type { EnvelopeItem } from './parse-envelope.ts';

const item = (type: string, payload = '{}', extra: Record<string, unknown> = {}): EnvelopeItem => ({
  headers: { type, ...extra },
  payload: Buffer.from(payload),
});

describe('classifyItem', () => {
  it('keeps event items as accepted errors', () => {
    expect(classifyItem(item('event'))).toMatchObject({ type: 'event', category: 'error', quantity: 1, keep: true, outcome: { outcome: 'accepted' } });
  });

  it('marks an empty event item invalid', () => {
    expect(classifyItem(item('event', ''))).toMatchObject({ keep: false, outcome: { outcome: 'invalid', reason: 'empty_payload' } });
  });

  it.each([
    ['transaction', 'transaction'], ['session', 'session'], ['sessions', 'session'], ['attachment', 'attachment'],
    ['client_report', 'internal'], ['replay_event', 'replay'], ['replay_recording', 'replay'], ['profile', 'profile'],
    ['profile_chunk', 'profile_chunk'], ['span', 'span'], ['log', 'log_item'], ['check_in', 'monitor'],
    ['user_report', 'user_report_v2'], ['feedback', 'feedback'],
  ])('accepts and drops %s items (category %s)', (type, category) => {
    const c = classifyItem(item(type));
    expect(c).toMatchObject({ type, category, keep: false, outcome: { outcome: 'filtered', reason: `unsupported_item_type:${type}` } });
    expect(outcomeLabel(c.outcome)).toBe('filtered');
  });

  it('drops unknown item types with a bounded reason', () => {
    expect(classifyItem(item('hologram'))).toMatchObject({ type: 'unknown', category: 'unknown', keep: false, outcome: { outcome: 'filtered', reason: 'unknown_item_type' } });
  });

  it('counts attachments in bytes and containers by item_count', () => {
    expect(classifyItem(item('attachment', 'abcdef')).quantity).toBe(6);
    expect(classifyItem(item('log', '{"items":[]}', { item_count: 12 })).quantity).toBe(12);
  });

  it('gives every known type a classification', () => {
    for (const t of ITEM_TYPES) expect(classifyItem(item(t)).type).toBe(t);
  });
});

describe('classifyItems', () => {
  it('gives exactly one outcome per item, in order', () => {
    const env = parseEnvelope(Buffer.from('{}\n{"type":"session"}\n{}\n{"type":"event"}\n{"message":"x"}\n{"type":"client_report"}\n{}\n{"type":"new_thing"}\n\n'));
    const out = classifyItems(env.items);
    expect(out.map((c) => [c.type, outcomeLabel(c.outcome), c.keep])).toEqual([
      ['session', 'filtered', false], ['event', 'accepted', true], ['client_report', 'filtered', false], ['unknown', 'filtered', false],
    ]);
  });
});

describe('classifyStoreEvent', () => {
  it('keeps error and default events, filters transactions and other types', () => {
    expect(classifyStoreEvent({ message: 'x' })).toMatchObject({ keep: true, category: 'error' });
    expect(classifyStoreEvent({ type: 'error' })).toMatchObject({ keep: true, category: 'error' });
    expect(classifyStoreEvent({ type: 'default' })).toMatchObject({ keep: true, category: 'default' });
    expect(classifyStoreEvent({ type: 'transaction' })).toMatchObject({ keep: false, category: 'transaction', outcome: { outcome: 'filtered', reason: 'unsupported_item_type:transaction' } });
    expect(classifyStoreEvent({ type: 'csp' })).toMatchObject({ keep: false, outcome: { outcome: 'filtered', reason: 'unknown_item_type' } });
  });
});

describe('outcomes', () => {
  it('labels each kind', () => {
    const cases: Array<[ItemOutcome, string]> = [
      [{ outcome: 'accepted' }, 'accepted'],
      [{ outcome: 'filtered', reason: 'unsupported_item_type:span' }, 'filtered'],
      [rateLimited('project_events_per_minute'), 'rate_limited'],
      [invalid('invalid_event_id'), 'invalid:invalid_event_id'],
    ];
    for (const [o, label] of cases) expect(outcomeLabel(o)).toBe(label);
  });

  it('maps raised errors to invalid reasons from the closed list', () => {
    expect(invalidFromError(svcError('invalid_event_id'))).toEqual({ outcome: 'invalid', reason: 'invalid_event_id' });
    expect(invalidFromError(svcError('event_too_large'))).toEqual({ outcome: 'invalid', reason: 'event_too_large' });
    expect(invalidFromError(svcError('not_found'))).toEqual({ outcome: 'invalid', reason: 'invalid_event' });
    expect(invalidFromError(new SyntaxError('bad json'))).toEqual({ outcome: 'invalid', reason: 'invalid_event' });
  });
});
