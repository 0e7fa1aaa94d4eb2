/**
 * Names of the gateway's lookup caches (core/cache.ts). The control plane invalidates them on every change with
 * `ctx.caches.invalidate(name, key?)`; proxy nodes register LookupCaches under the same names.
 *
 * - GATEWAY_KEYS_CACHE: keyed by the key's hash (gateway_keys.key_hash); invalidated with that hash when a key is
 *   created, changed, disabled or deleted.
 * - ACCOUNTS_CACHE, ALIASES_CACHE, PRICES_CACHE: whole-table caches; invalidated without a key (every entry dropped)
 *   when any account, alias or price override changes. Proxy nodes should cache them under any single key.
 */
export const GATEWAY_KEYS_CACHE = 'gateway-keys';
export const ACCOUNTS_CACHE = 'gateway-accounts';
export const ALIASES_CACHE = 'gateway-aliases';
export const PRICES_CACHE = 'gateway-prices';
