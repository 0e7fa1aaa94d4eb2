/**
 * svc ai …: the AI gateway: keys and their limits, a key's quota, usage, compression savings, provider accounts,
 * aliases, prices, kept calls.
 */
import { defineGroup } from '../command.ts';
import { accountsGroup } from './ai-accounts.ts';
import { aliasesGroup } from './ai-aliases.ts';
import { callsGroup } from './ai-calls.ts';
import { compression } from './ai-compression.ts';
import { keysGroup } from './ai-keys.ts';
import { pricesGroup } from './ai-prices.ts';
import { quota } from './ai-quota.ts';
import { usage } from './ai-usage.ts';

export const aiGroup = defineGroup('ai', 'AI gateway: keys and limits, quota, usage, compression, provider accounts, aliases, prices, kept calls', [
  keysGroup, quota, usage, compression, accountsGroup, aliasesGroup, pricesGroup, callsGroup,
]);
