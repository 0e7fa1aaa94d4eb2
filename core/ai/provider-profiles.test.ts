import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { DEFAULT_PROFILES, parseProfileOverrides, subscriptionProfile, subscriptionProviderOf } from './provider-profiles.ts';

describe('provider profiles', () => {
  it('have every key for every provider, with the reference values', () => {
    expect(DEFAULT_PROFILES.anthropic.api_headers['anthropic-beta']).toBe('oauth-2025-04-20');
    expect(DEFAULT_PROFILES.anthropic.usage_url).toBe('https://api.anthropic.com/api/oauth/usage');
    expect(DEFAULT_PROFILES.openai.api_base_url).toBe('https://chatgpt.com/backend-api/codex');
    expect(DEFAULT_PROFILES.openai.device_usercode_url).toMatch(/deviceauth\/usercode$/);
    expect(DEFAULT_PROFILES.gemini.api_base_url).toBe('https://cloudcode-pa.googleapis.com');
    for (const p of Object.values(DEFAULT_PROFILES)) expect(p.client_secret).toBeNull();
    expect(Object.keys(DEFAULT_PROFILES.anthropic).sort()).toEqual(Object.keys(DEFAULT_PROFILES.gemini).sort());
  });

  it('merge overrides by provider or short name, key by key', () => {
    const o = parseProfileOverrides(JSON.stringify({ claude: { token_url: 'http://127.0.0.1:9/token' }, openai: { scopes: ['openid'] } }));
    const p = subscriptionProfile(o, 'anthropic');
    expect(p.token_url).toBe('http://127.0.0.1:9/token');
    expect(p.client_id).toBe(DEFAULT_PROFILES.anthropic.client_id);
    expect(subscriptionProfile(o, 'openai').scopes).toEqual(['openid']);
    expect(subscriptionProviderOf('gemini-plan')).toBe('gemini');
    expect(subscriptionProviderOf('nope')).toBeUndefined();
  });

  it.each([
    ['[]', /JSON object/],
    ['{', /not valid JSON/],
    ['{"mistral":{}}', /unknown provider "mistral"/],
    ['{"anthropic":{"tokenUrl":"x"}}', /unknown key "tokenUrl"/],
    ['{"anthropic":{"token_url":"ftp://x"}}', /token_url" must be an http\(s\) URL/],
    ['{"openai":{"scopes":"openid"}}', /scopes" must be an array/],
    ['{"openai":{"refresh_lead_seconds":-1}}', /refresh_lead_seconds/],
    ['{"openai":{"rate_limit_headers":"x"}}', /rate_limit_headers/],
  ])('refuse %s with a sentence naming the problem', (text, message) => {
    expect(() => parseProfileOverrides(text)).toThrow(message);
  });

  it('are read from SVC_PROVIDER_PROFILES at start, and a bad file stops the start naming the variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'profiles-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, '{"gemini":{"client_secret":"from-the-file"}}');
    expect(loadConfig({ SVC_PROVIDER_PROFILES: good }).providerProfiles.gemini?.client_secret).toBe('from-the-file');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"gemini":{"client_id":5}}');
    for (const file of [bad, join(dir, 'missing.json')]) {
      try {
        loadConfig({ SVC_PROVIDER_PROFILES: file });
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as ConfigError).variable).toBe('SVC_PROVIDER_PROFILES');
      }
    }
  });
});
