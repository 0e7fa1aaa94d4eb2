import { describe, expect, it } from 'vitest';
import { decodeMessagesRequest } from './decode-messages-request.ts';
import { deferredToolsWarning } from '../deferred-tools-warning.ts';
import { loadedToolNames } from './deferred-tools.ts';
import { encodeMessagesRequest } from './encode-messages-request.ts';

const READ = { name: 'Read', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } };
const PLACEHOLDER = { name: 'DeferredToolPlaceholder', defer_loading: true };
const MCP = { name: 'mcp__docs__search', description: 'Search docs', input_schema: { type: 'object' }, defer_loading: true };

describe('deferred tools (defer_loading)', () => {
  it('leaves out deferred tools no search loaded, with one warning naming them', () => {
    const conv = decodeMessagesRequest({
      model: 'claude-sonnet-4-6', max_tokens: 64, tools: [PLACEHOLDER, READ, MCP],
      messages: [{ role: 'user', content: 'read a.txt' }],
    });
    expect(conv.tools.map((t) => t.name)).toEqual(['Read']);
    expect(conv.warnings).toEqual(['2 deferred tool(s) (defer_loading: true) were left out, as no tool search has loaded them: DeferredToolPlaceholder, mcp__docs__search.']);
  });

  it('keeps a deferred tool that a tool search loaded, and says so in the result text', () => {
    const conv = decodeMessagesRequest({
      model: 'claude-sonnet-4-6', max_tokens: 64, tools: [PLACEHOLDER, READ, { name: 'ToolSearch', input_schema: { type: 'object' } }, MCP],
      messages: [
        { role: 'user', content: 'search the docs' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'docs' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'mcp__docs__search' }] }] },
      ],
    });
    expect(conv.tools.map((t) => t.name)).toEqual(['Read', 'ToolSearch', 'mcp__docs__search']);
    expect(conv.turns[2].parts).toEqual([expect.objectContaining({ type: 'tool_result', content: [{ type: 'text', text: 'Tool loaded: mcp__docs__search' }] })]);
    expect(conv.warnings).toEqual(['1 deferred tool(s) (defer_loading: true) were left out, as no tool search has loaded them: DeferredToolPlaceholder.']);
  });

  it('counts tools loaded by a server-side search and tools already called', () => {
    const names = loadedToolNames([
      { role: 'assistant', content: [
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'tool_search_tool_regex', input: { query: 'w' } },
        { type: 'tool_search_tool_result', tool_use_id: 'srvtoolu_1', content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: 'get_weather' }] } },
        { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
      ] },
    ]);
    expect([...names].sort()).toEqual(['get_time', 'get_weather']);
  });

  it('keeps the deferred tools for a messages upstream, which loads them itself', () => {
    const conv = decodeMessagesRequest({ model: 'claude-sonnet-4-6', max_tokens: 64, tools: [PLACEHOLDER, READ, MCP], messages: [{ role: 'user', content: 'x' }] });
    expect(encodeMessagesRequest(conv).tools?.map((t) => [t.name, t.defer_loading])).toEqual([['Read', undefined], ['DeferredToolPlaceholder', true], ['mcp__docs__search', true]]);
  });

  it('lists at most five names in the warning', () => {
    expect(deferredToolsWarning(['a', 'b', 'c', 'd', 'e', 'f', 'g'])).toBe('7 deferred tool(s) (defer_loading: true) were left out, as no tool search has loaded them: a, b, c, d, e and 2 more.');
  });
});
