/** MCP tools for model prices (USD per million tokens): `list_prices` (everyone), `set_price`, `delete_price` (superusers). */
import { z } from 'zod';
import { defineTool, LIST_ARGS, listOutput } from '../mcp-tools.ts';
import { PRICE_ITEM } from '../output-shapes.ts';
import { restPath } from '../rest-call.ts';

const MODEL = z.string().min(1).max(200);
const PRICE = z.number().min(0).max(10_000);

export const listPricesTool = defineTool({
  name: 'list_prices',
  title: 'List model prices',
  description: 'Per model: the list price, this instance\'s override and the effective price the gateway charges, in USD per million tokens. With model: the one price that applies to that model id.',
  readOnly: true,
  input: { ...LIST_ARGS, model: MODEL.optional() },
  output: listOutput(PRICE_ITEM),
  call: ({ rest }, args) => rest('GET', restPath('prices'), { query: args }),
});

export const setPriceTool = defineTool({
  name: 'set_price',
  title: 'Set a model price',
  description: 'Override the price of a model id or * pattern, USD per million tokens; cache prices default to the list price, else the input price. Superusers only.',
  readOnly: false,
  input: { model: MODEL.describe('A model id or * pattern.'), input_per_mtok: PRICE, output_per_mtok: PRICE, cache_read_per_mtok: PRICE.optional(), cache_write_per_mtok: PRICE.optional() },
  output: PRICE_ITEM,
  call: ({ rest }, { model, ...body }) => rest('PUT', restPath('prices', model), { body }),
});

export const deletePriceTool = defineTool({
  name: 'delete_price',
  title: 'Remove a price override',
  description: "Remove a model's price override; the list price applies again. Superusers only.",
  readOnly: false,
  destructive: true,
  input: { model: MODEL },
  output: PRICE_ITEM,
  call: ({ rest }, { model }) => rest('DELETE', restPath('prices', model)),
});
