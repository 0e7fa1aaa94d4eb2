/**
 * The server's commands, run by main.js:
 *   node main.js serve [--role all|proxy|control-plane]   (npm start = all roles in one process)
 *   node main.js migrate                                  (apply migrations and exit)
 *   node main.js journal drain                            (replay SVC_DATA_DIR's write journals and exit)
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Role } from '../core/config.ts';
import { createLogger } from '../core/logger.ts';
import { migrate } from '../core/db/migrate.ts';
import { bootstrapAdmin } from '../control-plane/identity/bootstrap-admin.ts';
import { buildServer } from './build-server.ts';
import { drainJournals } from './journal-drain.ts';
import { checkPublicUrlForRole } from './public-url-check.ts';
import { checkSecretKey } from './secret-key-check.ts';
import { MIGRATIONS_DIR, openContext, openDb } from './open-context.ts';

const ROLES: Role[] = ['all', 'proxy', 'control-plane'];

export async function main(): Promise<void> {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { role: { type: 'string', default: 'all' }, help: { type: 'boolean', short: 'h' } } });
  const command = positionals[0] ?? 'serve';
  if (values.help || !['serve', 'migrate', 'journal'].includes(command) || (command === 'journal' && positionals[1] !== 'drain')) {
    process.stdout.write('usage: svc-server serve [--role all|proxy|control-plane] | migrate | journal drain\n');
    process.exit(values.help ? 0 : 2);
  }
  const role = values.role as Role;
  if (!ROLES.includes(role)) throw new ConfigError('--role', `must be one of ${ROLES.join(', ')}`);
  const config = loadConfig();
  const publicUrlWarning = command === 'serve' ? checkPublicUrlForRole(role) : undefined;
  const log = createLogger(config.logLevel);
  if (publicUrlWarning) log.warn(publicUrlWarning);

  if (command === 'migrate') {
    const db = await openDb(config, log);
    const applied = await migrate(db, MIGRATIONS_DIR, (name) => process.stdout.write(`applied ${name}\n`));
    process.stdout.write(applied.length ? `${applied.length} migration(s) applied\n` : 'database is up to date\n');
    await db.close();
    return;
  }

  if (command === 'journal') {
    const ctx = await openContext(config, log);
    await drainJournals(ctx, (line) => process.stdout.write(line));
    await ctx.counters.close();
    await ctx.db.close();
    return;
  }

  if (!config.databaseUrl) process.stdout.write(`Opening the embedded database in ${config.dataDir} (the first start takes a few seconds)…\n`);
  const ctx = await openContext(config, log);
  await checkSecretKey(ctx);
  if (role !== 'proxy') {
    const admin = await bootstrapAdmin(ctx);
    if (admin) {
      // Printed once, to the terminal only: the log never carries secrets.
      process.stdout.write(
        `\nFirst start: created the administrator.\n  user:     ${admin.username}\n  password: ${admin.password}\n  token:    ${admin.token}\n` +
          'Keep them now; they are not shown again. Use the token as "Authorization: Bearer <token>" or run `svc login`.\n\n',
      );
    }
  }
  const server = await buildServer(ctx, role);
  await server.app.listen({ port: config.port, host: config.host });
  const addr = server.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  process.stdout.write(
    `svc ${ctx.version} (${role}) listening on http://${config.host}:${port}  public URL ${config.publicUrl}\n` +
      (config.adminToken ? 'SVC_ADMIN_TOKEN is accepted as a superuser API token.\n' : 'Admin access: the token printed at first start, `svc login`, or set SVC_ADMIN_TOKEN.\n'),
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: draining');
    const force = setTimeout(() => process.exit(1), 30_000).unref();
    server.close().then(
      () => {
        clearTimeout(force);
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

