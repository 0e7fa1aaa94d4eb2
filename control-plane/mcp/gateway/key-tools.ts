/**
 * MCP tools for gateway keys: `list_keys`, `create_key`, `update_key`, `revoke_key` (GET, POST, PATCH and DELETE
 * /api/v1/keys, called in process as the caller) and `key_quota` (what a key has left this month: the service
 * behind GET /api/v1/quota, for a key the caller can see rather than by presenting the key's secret).
 */
import { z } from 'zod';
import { KEY_LIMIT_NAMES, KEY_LIMITS } from '../../../core/ai/key-limits.ts';
import { COMPRESSION_MODES } from '../../../core/ai/compression-settings.ts';
import { LOG_BODIES, loadVisibleKey } from '../../ai/key-service.ts';
import { keyQuota } from '../../usage/key-quota.ts';
import { defineTool, LIST_ARGS, listOutput, TEAM_ARG } from '../mcp-tools.ts';
import { CREATED_KEY, KEY_ITEM, KEY_QUOTA, REVOKED_KEY } from '../output-shapes.ts';
import { restPath } from '../rest-call.ts';

const KEY_ID = z.string().min(1).max(64).describe('The key id (not its secret).');
const LIMITS = z.strictObject(Object.fromEntries(KEY_LIMIT_NAMES.map((n) => {
  const base = KEY_LIMITS[n].type === 'integer' ? z.int() : z.number();
  return [n, base.min(0).max(KEY_LIMITS[n].max).nullable().optional()];
}))).describe('Limits; absent or null = unlimited. Months are calendar months in UTC.');
const FIELDS = {
  models: z.array(z.string()).max(100).optional().describe('Allowed model ids, alias names or * patterns; empty = every model.'),
  limits: LIMITS.optional(),
  log_bodies: z.enum(LOG_BODIES).optional().describe('Keep request and response bodies: off, or for 1d, 7d or 30d.'),
  compression: z.enum(COMPRESSION_MODES).nullable().optional().describe("Compression of this key's calls; null inherits the team's."),
};

export const listKeysTool = defineTool({
  name: 'list_keys',
  title: 'List gateway keys',
  description: 'Gateway keys you can see (team keys and your own keys), newest first; never their secrets.',
  readOnly: true,
  input: { ...LIST_ARGS, team: TEAM_ARG, own: z.boolean().optional().describe('true: only your own keys; false: only team keys.') },
  output: listOutput(KEY_ITEM),
  call: ({ rest }, args) => rest('GET', restPath('keys'), { query: args }),
});

export const createKeyTool = defineTool({
  name: 'create_key',
  title: 'Create a gateway key',
  description: 'Create a gateway key in a team; the answer holds its sk-svc- secret once (as "key"). Needs a write-scoped token and write access to the team.',
  readOnly: false,
  input: {
    team: z.string().min(1).max(200).describe('Team id or name.'),
    name: z.string().min(1).max(100),
    own: z.boolean().optional().describe('The key belongs to you inside the team.'),
    ...FIELDS,
  },
  output: CREATED_KEY,
  call: ({ rest }, { team, ...body }) => rest('POST', restPath('keys'), { query: { team }, body }),
});

export const updateKeyTool = defineTool({
  name: 'update_key',
  title: 'Change a gateway key',
  description: 'Change a key: name, models, limits (replaces the whole object), log_bodies, compression, or disable/enable it.',
  readOnly: false,
  input: { key: KEY_ID, name: z.string().min(1).max(100).optional(), ...FIELDS, disabled: z.boolean().optional() },
  output: KEY_ITEM,
  call: ({ rest }, { key, ...body }) => rest('PATCH', restPath('keys', key), { body }),
});

export const revokeKeyTool = defineTool({
  name: 'revoke_key',
  title: 'Revoke a gateway key',
  description: 'Delete a gateway key; it stops working at once on every node.',
  readOnly: false,
  destructive: true,
  input: { key: KEY_ID },
  output: REVOKED_KEY,
  call: ({ rest }, { key }) => rest('DELETE', restPath('keys', key)),
});

export const keyQuotaTool = defineTool({
  name: 'key_quota',
  title: "A gateway key's quota",
  description: "What a key has left this calendar month (UTC): its limits, tokens and dollars spent and in flight, requests in the last minute and day, and what remains.",
  readOnly: true,
  input: { key: KEY_ID },
  output: KEY_QUOTA,
  call: async ({ ctx, p }, { key }) => keyQuota(ctx, await loadVisibleKey(ctx.db, p, key)),
});
