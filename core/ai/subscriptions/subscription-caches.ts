/**
 * Cache names of the subscription-accounts feature (core/cache.ts LookupCache, invalidated on every node):
 * - ACCOUNT_PAUSES_CACHE: every pause in account_pauses (whole table, one key); dropped whenever a pause starts or ends.
 * - ACCOUNT_QUOTA_CACHE: every account's quota windows (whole table, one key); dropped after each quota read, so
 *   rotation sends new conversations to the account with the most quota left.
 * Account state changes drop ACCOUNTS_CACHE (core/ai/cache-names.ts).
 */
export const ACCOUNT_PAUSES_CACHE = 'gateway-account-pauses';
export const ACCOUNT_QUOTA_CACHE = 'gateway-account-quota';
