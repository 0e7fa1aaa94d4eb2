/**
 * The gateway settings the panel bench reads, made through the API as an administrator would: keys, provider
 * accounts (openai-compatible at a closed local port: nothing is called, the pages only read them), more aliases than
 * one page of the aliases page (50) and more price overrides than one page of the prices page (100, with the list
 * prices).
 */
export type Api = (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

export interface ConfigShape {
  keys: number;
  accounts: number;
  aliases: number;
  overrides: number;
}

export const CONFIG_SHAPE: ConfigShape = { keys: 20, accounts: 6, aliases: 60, overrides: 120 };

const pad = (i: number) => String(i).padStart(3, '0');

export async function seedConfig(api: Api, team: string, shape: ConfigShape = CONFIG_SHAPE): Promise<void> {
  for (let i = 0; i < shape.keys; i++) await api('POST', `/api/v1/keys?team=${team}`, { name: `key-${i}` });
  for (let i = 0; i < shape.accounts; i++) {
    await api('POST', '/api/v1/accounts', { name: `local-${i}`, provider: 'openai-compatible', api_key: `sk-local-${pad(i)}-0123456789`, base_url: 'http://127.0.0.1:9/v1', models: ['llama-*'] });
  }
  for (let i = 0; i < shape.aliases; i++) await api('PUT', `/api/v1/aliases/alias-${pad(i)}`, { models: ['gpt-4o', 'gpt-4.1'] });
  for (let i = 0; i < shape.overrides; i++) await api('PUT', `/api/v1/prices/local-model-${pad(i)}`, { input_per_mtok: 0.1, output_per_mtok: 0.2 });
}
