/**
 * svc login / logout / whoami. `login` exchanges a user name and password for an API token
 * (POST /api/v1/auth/token) and stores it in the config file; `logout` revokes that token and forgets it.
 */
import { hostname } from 'node:os';
import { ApiClient, seg } from '../api-client.ts';
import { CliError, isCliError } from '../cli-error.ts';
import { defineCommand } from '../command.ts';
import { readConfig, writeConfig } from '../config-file.ts';
import { ask, askHidden, isInteractive, readStdin } from '../prompt.ts';
import { isHttpUrl, normalizeUrl } from '../settings.ts';

interface IssuedToken {
  id: string;
  name: string;
  scope: string;
  expires_at: string | null;
  token: string;
}

interface Me {
  id: string | null;
  username: string;
  is_superuser: boolean;
  scope: string;
  teams: { id: string; name: string; role: string }[];
}

export const login = defineCommand({
  name: 'login',
  summary: 'Sign in with a user name and password and store an API token in the config file',
  description:
    'Sign in: asks for the server URL, user name and password (not echoed), exchanges them for an API token and stores the token in the config file (mode 600).\n' +
    'For scripts, pass --url and --user and pipe the password with --password-stdin.',
  options: {
    url: { type: 'string', value: 'URL', description: 'Server URL, e.g. https://svc.example.com (asked when omitted on a terminal).' },
    user: { type: 'string', value: 'NAME', description: 'User name or e-mail (asked when omitted on a terminal).' },
    'password-stdin': { type: 'boolean', description: 'Read the password from stdin instead of asking.' },
    scope: { type: 'string', value: 'read|deploy|write', description: 'Scope of the stored token (default write).' },
    ttl: { type: 'string', value: 'TTL', description: 'Lifetime of the stored token: seconds, 12h, 30d or never (default 90d).' },
  },
  examples: ['svc login', 'printf %s "$SVC_PASSWORD" | svc login --url https://svc.example.com --user ci --password-stdin'],
  async run(ctx) {
    const current = ctx.settings();
    const tty = isInteractive() && !ctx.opts['password-stdin'];
    const need = (what: string, flag: string) => new CliError('usage', `No terminal to ask for the ${what}: pass ${flag}.`, { helpFor: 'svc login' });

    let url = ctx.opts.url;
    if (url === undefined) {
      if (!tty) throw need('server URL', '--url');
      url = await ask('Server URL', current.url);
    }
    url = normalizeUrl(url);
    if (!isHttpUrl(url)) throw new CliError('usage', `"${url}" is not an http(s) URL.`, { helpFor: 'svc login' });

    let user = ctx.opts.user;
    if (user === undefined) {
      if (!tty) throw need('user name', '--user');
      user = await ask('User');
    }
    if (!user) throw new CliError('usage', 'The user name is empty.', { helpFor: 'svc login' });

    let password: string;
    if (ctx.opts['password-stdin']) password = await readStdin('The password');
    else if (tty) password = await askHidden('Password');
    else throw need('password', '--password-stdin');
    if (!password) throw new CliError('usage', 'The password is empty.', { helpFor: 'svc login' });

    const issued = await new ApiClient(url, null).post<IssuedToken>('/api/v1/auth/token', {
      username: user,
      password,
      name: `svc login on ${hostname()}`.slice(0, 100),
      ...(ctx.opts.scope ? { scope: ctx.opts.scope } : {}),
      ...(ctx.opts.ttl ? { ttl: ctx.opts.ttl } : {}),
    });

    // A previous login to the same server leaves a token behind: revoke it (best effort) before forgetting it.
    const previous = readConfig(current.configPath);
    if (previous.url === url && previous.token && previous.token_id && previous.token_id !== issued.id) {
      await new ApiClient(url, previous.token).delete(`/api/v1/tokens/${seg(previous.token_id)}`).catch(() => {});
    }
    writeConfig(current.configPath, { url, token: issued.token, token_id: issued.id, user });

    const result = { url, user, token_id: issued.id, scope: issued.scope, expires_at: issued.expires_at, config: current.configPath };
    ctx.out.result(result, () => {
      ctx.out.line(`Logged in to ${url} as ${user}.`);
      ctx.out.fields([['token id', issued.id], ['scope', issued.scope], ['expires', issued.expires_at ?? 'never'], ['stored in', current.configPath]]);
    });
    if (ctx.env.SVC_TOKEN) ctx.out.warn('SVC_TOKEN is set in the environment; it takes precedence over the stored token.');
    if (ctx.env.SVC_URL && normalizeUrl(ctx.env.SVC_URL) !== url) ctx.out.warn(`SVC_URL (${ctx.env.SVC_URL}) is set in the environment; it takes precedence over the stored URL.`);
  },
});

export const logout = defineCommand({
  name: 'logout',
  summary: 'Revoke the stored API token and remove it from the config file',
  examples: ['svc logout'],
  async run(ctx) {
    const path = ctx.settings().configPath;
    const stored = readConfig(path);
    if (!stored.token) {
      ctx.out.result({ logged_out: false, config: path }, () => ctx.out.line('Not logged in (no token in the config file).'));
      return;
    }
    let revoked = false;
    if (stored.url && stored.token_id) {
      try {
        await new ApiClient(stored.url, stored.token).delete(`/api/v1/tokens/${seg(stored.token_id)}`);
        revoked = true;
      } catch (e) {
        // An expired or already revoked token is fine; anything else is worth saying, but the token is still forgotten.
        if (!(isCliError(e) && e.status === 401)) ctx.out.warn(`Could not revoke the token on the server: ${(e as Error).message}`);
      }
    }
    writeConfig(path, { ...(stored.url ? { url: stored.url } : {}) });
    ctx.out.result({ logged_out: true, revoked, config: path }, () => ctx.out.line(`Logged out${stored.url ? ` of ${stored.url}` : ''}${revoked ? '; the token is revoked' : ''}.`));
  },
});

export const whoami = defineCommand({
  name: 'whoami',
  summary: 'Show the user behind the current token, its scope and teams',
  examples: ['svc whoami', 'svc whoami --json'],
  async run(ctx) {
    const api = ctx.api();
    const me = await api.get<Me>('/api/v1/users/me');
    ctx.out.result({ ...me, url: api.baseUrl }, () => {
      ctx.out.fields([
        ['user', me.username],
        ['id', me.id],
        ['superuser', me.is_superuser],
        ['scope', me.scope],
        ['server', api.baseUrl],
      ]);
      if (me.teams.length) {
        ctx.out.line();
        ctx.out.table(me.teams, [
          { title: 'team', value: (t) => t.name },
          { title: 'id', value: (t) => t.id },
          { title: 'role', value: (t) => t.role },
        ]);
      }
    });
  },
});
