/**
 * Model resolution (DESIGN.md §3, step 4): an alias expands to its ordered models, anything else is one model;
 * each model keeps the accounts that serve it. Models nobody serves are left out; when none is left the call is
 * refused with 404 `model_not_found`. The key's permission is checked on the name the client asked for (an
 * alias name or a model id); an alias is also allowed when the key allows every model behind it.
 */
import { svcError } from '../../core/errors.ts';
import type { GatewayKey } from '../keys/key-store.ts';
import type { AccountSnapshot, RoutingTable } from './routing-table.ts';
import type { UpstreamAccount } from './upstream-account.ts';

export interface RouteStep {
  model: string;
  accounts: readonly UpstreamAccount[];
}

export interface ModelPlan {
  asked: string;
  /** The alias name when the client asked for one. */
  alias: string | null;
  steps: RouteStep[];
}

/** The plan for `asked`; without a promise when the routing data is cached (every call but the first). */
export function resolveModel(table: RoutingTable, key: GatewayKey, asked: string): ModelPlan | Promise<ModelPlan> {
  const cached = table.cached();
  if (cached) return planOf(table, cached.aliases, cached.snap, key, asked);
  return Promise.all([table.aliases(), table.snapshot()]).then(([aliases, snap]) => planOf(table, aliases, snap, key, asked));
}

function planOf(table: RoutingTable, aliases: Map<string, readonly string[]>, snap: AccountSnapshot, key: GatewayKey, asked: string): ModelPlan {
  const targets = aliases.get(asked);
  if (!key.allows(asked) && !(targets && targets.every((m) => key.allows(m)))) {
    throw svcError('model_not_allowed', `This key is not allowed to use the model "${asked}".`);
  }
  const models = targets ?? [asked];
  const steps: RouteStep[] = [];
  for (const model of models) {
    const accounts = table.accountsFor(snap, model);
    if (accounts.length > 0) steps.push({ model, accounts });
  }
  if (steps.length === 0) {
    const resting = table.restingFor(snap, models);
    if (resting) {
      throw svcError('no_account_available', resting.state === 'paused'
        ? `Every provider account serving "${asked}" is paused because its quota is nearly spent; it resumes by itself when the quota window resets.`
        : `Every provider account serving "${asked}" needs a new sign-in; an administrator must sign it in again.`);
    }
    throw svcError('model_not_found', targets
      ? `No provider account serves any model of the alias "${asked}" (${models.join(', ')}).`
      : `No provider account serves the model "${asked}" and no alias has this name.`);
  }
  return { asked, alias: targets ? asked : null, steps };
}
