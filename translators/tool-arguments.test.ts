import { describe, expect, it } from 'vitest';
import { parseToolArguments, toolArgumentsText } from './tool-arguments.ts';

describe('tool-arguments', () => {
  it('parses tool arguments leniently and keeps valid raw text', () => {
    expect(parseToolArguments('{"a":1}')).toEqual({ a: 1 });
    expect(parseToolArguments('')).toEqual({});
    expect(parseToolArguments('[1]')).toEqual({});
    expect(parseToolArguments('{"a":')).toEqual({});
    expect(toolArgumentsText({ a: 1 }, '{ "a": 1 }')).toBe('{ "a": 1 }');
    expect(toolArgumentsText({ a: 1 }, 'broken')).toBe('{"a":1}');
  });
});
