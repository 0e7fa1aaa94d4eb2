import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../core/errors.ts';
import { statelessResponsesWarnings } from './stateless-responses-warnings.ts';

function refusal(body: Record<string, unknown>): unknown {
  try {
    statelessResponsesWarnings(body);
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('statelessResponsesWarnings', () => {
  it('refuses what needs a kept response, naming the field', () => {
    for (const [body, param] of [
      [{ previous_response_id: 'resp_1' }, 'previous_response_id'],
      [{ conversation: { id: 'conv_1' } }, 'conversation'],
      [{ background: true }, 'background'],
    ] as const) {
      const e = refusal(body);
      expect(isSvcError(e) && { code: e.code, status: e.status, param: e.details.param }).toEqual({ code: 'response_state_unsupported', status: 400, param });
    }
  });

  it('lets absent, null and empty state fields through, and warns only for store: true', () => {
    expect(statelessResponsesWarnings({ previous_response_id: null, conversation: '', background: false, store: false })).toEqual([]);
    expect(statelessResponsesWarnings({ store: true })).toEqual([expect.stringContaining('store: true was ignored')]);
    expect(statelessResponsesWarnings({ store: true }, true)).toEqual([]);
  });
});
