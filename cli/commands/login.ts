/**
 * svc login / logout / whoami. `login` runs the device-authorization grant: the server gives a short code, which is
 * approved in the panel (the printed link), or here with the user's password (--user); the access token (15
 * minutes) and the refresh token are stored in the config file, and every later command refreshes the access
 * token when it has expired. `logout` ends the session on the server (every node) and forgets the tokens.
 */
import { hostname } from 'node:os';
import { ApiClient, seg } from '../api-client.ts';
import { CliError, isCliError } from '../cli-error.ts';
import { defineCommand } from '../command.ts';
import { readConfig, writeConfig, type ConfigData } from '../config-file.ts';
import { ask, askHidden, isInteractive, readStdin } from '../prompt.ts';
import { isHttpUrl, normalizeUrl } from '../settings.ts';
import { expiresAt, oauthPost, pollDeviceToken, type DeviceStart } from './login-session.ts';

interface Me {
  id: string | null;
  username: string;
  is_superuser: boolean;
  scope: string;
  teams: { id: string; name: string; role: string }[];
}

/** Ends what a config file holds on its server: the session of svc login, or the API token of an older version. */
async function endStoredSignIn(stored: ConfigData): Promise<boolean> {
  if (!stored.url) return false;
  if (stored.refresh_token) {
    await oauthPost(stored.url, '/oauth/revoke', { token: stored.refresh_token });
    return true;
  }
  if (stored.token && stored.token_id) {
    await new ApiClient(stored.url, stored.token).delete(`/api/v1/tokens/${seg(stored.token_id)}`);
    return true;
  }
  return false;
}

export const login = defineCommand({
  name: 'login',
  summary: 'Sign in: approve a code in the panel, or with your password, and store the session in the config file',
  description:
    'Sign in with a device code: prints a link and a code to approve in the panel (signed in there), and waits. With --user, asks for the password\n' +
    '(not echoed) and approves the code here. The access token (15 minutes) and its refresh token are stored in the config file (mode 600);\n' +
    'later commands refresh the access token by themselves. For scripts, pass --url and --user and pipe the password with --password-stdin.',
  options: {
    url: { type: 'string', value: 'URL', description: 'Server URL, e.g. https://svc.example.com (asked when omitted on a terminal).' },
    user: { type: 'string', value: 'NAME', description: 'Approve here with this user name (or e-mail) and its password instead of in the panel.' },
    'password-stdin': { type: 'boolean', description: 'Read the password from stdin instead of asking (needs --user).' },
    scope: { type: 'string', value: 'read|deploy|write', description: 'Scope of the session (default write).' },
  },
  examples: ['svc login --url https://svc.example.com', 'svc login --user alice', 'printf %s "$SVC_PASSWORD" | svc login --url https://svc.example.com --user ci --password-stdin'],
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
    const user = ctx.opts.user;
    if (user === '') throw new CliError('usage', 'The user name is empty.', { helpFor: 'svc login' });
    if (ctx.opts['password-stdin'] && user === undefined) throw new CliError('usage', '--password-stdin needs --user.', { helpFor: 'svc login' });

    let password: string | undefined;
    if (user !== undefined) {
      if (ctx.opts['password-stdin']) password = await readStdin('The password');
      else if (tty) password = await askHidden('Password');
      else throw need('password', '--password-stdin');
      if (!password) throw new CliError('usage', 'The password is empty.', { helpFor: 'svc login' });
    }

    const start = await oauthPost<DeviceStart>(url, '/oauth/device_authorization', {
      client_id: 'svc-cli',
      client_name: `svc login on ${hostname()}`.slice(0, 100),
      ...(ctx.opts.scope ? { scope: ctx.opts.scope } : {}),
    });
    if (user !== undefined) {
      await new ApiClient(url, null).post('/api/v1/auth/device/approve', { user_code: start.user_code, username: user, password });
    } else {
      // On stderr, so that --json keeps stdout to the result alone.
      ctx.out.note(`Open ${start.verification_uri_complete} and approve the code ${start.user_code} (valid ${Math.round(start.expires_in / 60)} minutes). Waiting…`);
    }
    const tokens = await pollDeviceToken(url, start);
    const me = await new ApiClient(url, tokens.access_token).get<Me>('/api/v1/users/me');

    // A previous login to the same server leaves a session behind: end it (best effort) before forgetting it.
    const previous = readConfig(current.configPath);
    if (previous.url === url) await endStoredSignIn(previous).catch(() => {});
    writeConfig(current.configPath, { url, token: tokens.access_token, refresh_token: tokens.refresh_token, token_expires_at: expiresAt(tokens), user: me.username });

    const result = { url, user: me.username, scope: tokens.scope, expires_in: tokens.expires_in, config: current.configPath };
    ctx.out.result(result, () => {
      ctx.out.line(`Logged in to ${url} as ${me.username}.`);
      ctx.out.fields([['scope', tokens.scope], ['stored in', current.configPath]]);
    });
    if (ctx.env.SVC_TOKEN) ctx.out.warn('SVC_TOKEN is set in the environment; it takes precedence over the stored token.');
    if (ctx.env.SVC_URL && normalizeUrl(ctx.env.SVC_URL) !== url) ctx.out.warn(`SVC_URL (${ctx.env.SVC_URL}) is set in the environment; it takes precedence over the stored URL.`);
  },
});

export const logout = defineCommand({
  name: 'logout',
  summary: 'End the stored session on the server and remove it from the config file',
  examples: ['svc logout'],
  async run(ctx) {
    const path = ctx.settings().configPath;
    const stored = readConfig(path);
    if (!stored.token && !stored.refresh_token) {
      ctx.out.result({ logged_out: false, config: path }, () => ctx.out.line('Not logged in (no token in the config file).'));
      return;
    }
    let revoked = false;
    try {
      revoked = await endStoredSignIn(stored);
    } catch (e) {
      // An expired or already revoked token is fine; anything else is worth saying, but the token is still forgotten.
      if (!(isCliError(e) && e.status === 401)) ctx.out.warn(`Could not end the session on the server: ${(e as Error).message}`);
    }
    writeConfig(path, { ...(stored.url ? { url: stored.url } : {}) });
    ctx.out.result({ logged_out: true, revoked, config: path }, () => ctx.out.line(`Logged out${stored.url ? ` of ${stored.url}` : ''}${revoked ? '; the session is ended' : ''}.`));
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
