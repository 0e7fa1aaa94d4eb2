import { describe, expect, it } from 'vitest';
import { checkArguments, type JsonSchema } from './check-arguments.ts';

const schema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['q'],
  properties: {
    q: { type: 'string', minLength: 1, maxLength: 5 },
    limit: { type: 'integer', minimum: 1, maximum: 200 },
    kind: { type: 'string', enum: ['a', 'b'] },
    tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
  },
};

describe('checkArguments', () => {
  it('accepts valid arguments', () => {
    expect(checkArguments(schema, { q: 'x', limit: 5, kind: 'a', tags: ['t'] })).toEqual([]);
  });

  it('names every problem', () => {
    expect(checkArguments(schema, 'nope')).toEqual(['arguments must be an object']);
    expect(checkArguments(schema, {})).toEqual(['arguments.q is required']);
    expect(checkArguments(schema, { q: '', limit: 1.5, kind: 'c', tags: ['a', 'b', 3], extra: 1 })).toEqual([
      'arguments.q must have at least 1 characters',
      'arguments.limit must be an integer',
      'arguments.kind must be one of a, b',
      'arguments.tags must have at most 2 items',
      'arguments.tags[2] must be a string',
      'arguments.extra is not a known argument',
    ]);
    expect(checkArguments(schema, { q: 'abcdef', limit: 0 })).toEqual(['arguments.q must have at most 5 characters', 'arguments.limit must be at least 1']);
  });
});
