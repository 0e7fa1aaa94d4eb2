/** MCP tools for model aliases: `list_aliases` (everyone), `set_alias` and `delete_alias` (superusers), as on REST. */
import { z } from 'zod';
import { MAX_ALIAS_MODELS } from '../../ai/aliases-routes.ts';
import { defineTool, LIST_ARGS, listOutput } from '../mcp-tools.ts';
import { ALIAS_ITEM } from '../output-shapes.ts';
import { restPath } from '../rest-call.ts';

const NAME = z.string().min(1).max(200).describe('The alias name (what clients send as the model).');

export const listAliasesTool = defineTool({
  name: 'list_aliases',
  title: 'List model aliases',
  description: 'Model aliases by name: each expands to models tried in order while one answers 429, 404 or 5xx.',
  readOnly: true,
  input: { ...LIST_ARGS },
  output: listOutput(ALIAS_ITEM),
  call: ({ rest }, args) => rest('GET', restPath('aliases'), { query: args }),
});

export const setAliasTool = defineTool({
  name: 'set_alias',
  title: 'Create or replace a model alias',
  description: `Make a name expand to 1 to ${MAX_ALIAS_MODELS} model ids, tried in order. Aliases do not nest. Superusers only.`,
  readOnly: false,
  input: { name: NAME, models: z.array(z.string().min(1)).min(1).max(MAX_ALIAS_MODELS) },
  output: ALIAS_ITEM,
  call: ({ rest }, { name, models }) => rest('PUT', restPath('aliases', name), { body: { models } }),
});

export const deleteAliasTool = defineTool({
  name: 'delete_alias',
  title: 'Delete a model alias',
  description: 'Remove an alias; clients sending its name then get model_not_found unless a model has that name. Superusers only.',
  readOnly: false,
  destructive: true,
  input: { name: NAME },
  output: ALIAS_ITEM,
  call: ({ rest }, { name }) => rest('DELETE', restPath('aliases', name)),
});
