/**
 * MCP tools for provider accounts (superusers, as on REST): `list_accounts`, `show_account` (with its quota
 * windows, pauses, cooldown and sign-in) and `refresh_account_quota` (reads a subscription's windows now).
 */
import { z } from 'zod';
import { PROVIDERS } from '../../ai/account-input.ts';
import { defineTool, LIST_ARGS, listOutput } from '../mcp-tools.ts';
import { ACCOUNT_DETAILS, ACCOUNT_ITEM } from '../output-shapes.ts';
import { restPath } from '../rest-call.ts';

const ACCOUNT_ID = z.string().min(1).max(64).describe('The account id.');

export const listAccountsTool = defineTool({
  name: 'list_accounts',
  title: 'List provider accounts',
  description: 'Provider accounts the gateway calls (API keys and subscription plans), newest first; never their secrets. Superusers only.',
  readOnly: true,
  input: {
    ...LIST_ARGS,
    provider: z.enum(PROVIDERS).optional(),
    state: z.enum(['active', 'disabled', 'needs_sign_in', 'paused']).optional(),
  },
  output: listOutput(ACCOUNT_ITEM),
  call: ({ rest }, args) => rest('GET', restPath('accounts'), { query: args }),
});

export const showAccountTool = defineTool({
  name: 'show_account',
  title: 'Show a provider account and its quota windows',
  description: "One provider account with its quota windows (used and left fractions, resets, forecast), pauses, cooldown and sign-in. Superusers only.",
  readOnly: true,
  input: { account: ACCOUNT_ID },
  output: ACCOUNT_DETAILS,
  call: ({ rest }, { account }) => rest('GET', restPath('accounts', account)),
});

export const refreshAccountQuotaTool = defineTool({
  name: 'refresh_account_quota',
  title: "Read a subscription account's quota now",
  description: "Read a subscription account's quota windows from the provider now, pause or resume it on them, and answer its quota details. Superusers only.",
  readOnly: false,
  input: { account: ACCOUNT_ID },
  output: z.looseObject({ id: z.string(), quota: ACCOUNT_DETAILS.shape.quota }),
  call: ({ rest }, { account }) => rest('POST', `${restPath('accounts', account)}/quota/refresh`),
});
