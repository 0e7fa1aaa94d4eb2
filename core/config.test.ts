import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('configuration', () => {
  it('has working defaults for a single node', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8080, host: '127.0.0.1', publicUrl: 'http://127.0.0.1:8080', databaseUrl: undefined, redisUrl: undefined, allowPrivateWebhooks: false, requestBodyTimeoutMs: 60_000 });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://127.0.0.1/x' }, 'SVC_SECRET_KEY'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ SVC_PUBLIC_URL: 'ftp://x' }, 'SVC_PUBLIC_URL'],
    [{ SVC_SECRET_KEY: 'short' }, 'SVC_SECRET_KEY'],
    [{ SVC_ADMIN_TOKEN: 'short' }, 'SVC_ADMIN_TOKEN'],
    [{ SVC_ALLOW_PRIVATE_WEBHOOKS: 'maybe' }, 'SVC_ALLOW_PRIVATE_WEBHOOKS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ SVC_REQUEST_BODY_TIMEOUT_MS: '10' }, 'SVC_REQUEST_BODY_TIMEOUT_MS'],
    [{ SVC_PANEL_ORIGIN: 'admin.example.com' }, 'SVC_PANEL_ORIGIN'],
    [{ SVC_GATEWAY_URL: 'ftp://gateway.example.com' }, 'SVC_GATEWAY_URL'],
    [{ SVC_EVENT_DOCUMENTS: 'text' }, 'SVC_EVENT_DOCUMENTS'],
  ])('names the bad variable in %j', (env, variable) => {
    try {
      loadConfig(env);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).variable).toBe(variable);
      expect((e as Error).message).toContain(variable);
    }
  });

  it('reads the panel\'s origin as a browser names it, and the gateway\'s address without a trailing slash', () => {
    const c = loadConfig({ SVC_PANEL_ORIGIN: 'https://Admin.example.com:443/panel/', SVC_GATEWAY_URL: 'https://gateway.example.com/' });
    expect(c).toMatchObject({ panelOrigin: 'https://admin.example.com', gatewayUrl: 'https://gateway.example.com' });
    expect(loadConfig({})).toMatchObject({ panelOrigin: undefined, gatewayUrl: undefined });
  });

  it('refuses private webhook targets everywhere unless the operator opts in', () => {
    for (const NODE_ENV of [undefined, 'development', 'test', 'production']) {
      const env = NODE_ENV ? { NODE_ENV } : {};
      expect(loadConfig(env).allowPrivateWebhooks).toBe(false);
      expect(loadConfig({ ...env, SVC_ALLOW_PRIVATE_WEBHOOKS: 'true' }).allowPrivateWebhooks).toBe(true);
    }
  });

  it('reads the link peers as a URL and a token, both or neither (docs/links.md)', () => {
    const c = loadConfig({ SVC_APPS_URL: 'https://apps.example.com/', SVC_APPS_TOKEN: 'apps-token' });
    expect(c.appsPeer).toEqual({ url: 'https://apps.example.com', token: 'apps-token' });
    expect(c.pagesPeer).toBeUndefined();
    expect(c.allowPrivatePeers).toBe(false);
    expect(() => loadConfig({ SVC_PAGES_URL: 'https://pages.example.com' })).toThrow(/SVC_PAGES_TOKEN is required with SVC_PAGES_URL/);
    expect(() => loadConfig({ SVC_APPS_TOKEN: 'apps-token' })).toThrow(/SVC_APPS_URL is required/);
    expect(() => loadConfig({ SVC_APPS_URL: 'ftp://apps.example.com', SVC_APPS_TOKEN: 'x' })).toThrow(/SVC_APPS_URL must use one of http:, https:/);
  });

  it('stores event documents as jsonb until told json (docs/errors.md#event-documents)', () => {
    expect(loadConfig({}).eventDocuments).toBe('jsonb');
    expect(loadConfig({ SVC_EVENT_DOCUMENTS: 'json' }).eventDocuments).toBe('json');
    expect(() => loadConfig({ SVC_EVENT_DOCUMENTS: 'JSON' })).toThrow('SVC_EVENT_DOCUMENTS must be one of jsonb, json (got "JSON")');
  });
});
