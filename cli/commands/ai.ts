/** svc ai …: the AI gateway: keys and their limits, a key's quota, usage, provider accounts. */
import { defineGroup } from '../command.ts';
import { accountsGroup } from './ai-accounts.ts';
import { keysGroup } from './ai-keys.ts';
import { quota } from './ai-quota.ts';
import { usage } from './ai-usage.ts';

export const aiGroup = defineGroup('ai', 'AI gateway: keys and limits, quota, usage, provider accounts', [keysGroup, quota, usage, accountsGroup]);
