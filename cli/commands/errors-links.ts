/**
 * svc errors links list | link-app | link-alias | unlink-app | unlink-alias (/api/v1/projects/{id}/links): a
 * project's links to apps of the apps service and aliases of the pages service (docs/links.md).
 */
import { seg } from '../api-client.ts';
import { defineCommand, defineGroup } from '../command.ts';
import { resolveProject } from './errors-projects.ts';
import { LINK_COLUMNS, type Link } from './link-columns.ts';

const PROJECT_ARG = { name: 'project', required: true, description: 'Project id or slug.' } as const;
const TEAM = { type: 'string', value: 'TEAM', description: 'The team, when several have a project with this slug.' } as const;
const SEGMENT = { app: 'apps', alias: 'aliases' } as const;

const list = defineCommand({
  name: 'list',
  summary: "List a project's links to apps and pages aliases, with their state",
  args: [PROJECT_ARG],
  options: { team: TEAM },
  examples: ['svc errors links list web-shop', 'svc errors links list 12 --json'],
  async run(ctx) {
    const api = ctx.api();
    const id = await resolveProject(api, ctx.args.project as string, ctx.opts.team);
    const page = await api.get<{ items: Link[]; next_cursor: null }>(`/api/v1/projects/${id}/links`);
    ctx.out.result(page, () => ctx.out.table(page.items, LINK_COLUMNS, 'No links. Link one with "svc errors links link-app PROJECT APP".'));
  },
});

function linkCommand(kind: 'app' | 'alias') {
  const what = kind === 'app' ? 'an app (it gets CLIENT_DSN from its next deploy)' : 'a pages alias (its pages get the reporting script)';
  return defineCommand({
    name: `link-${kind}`,
    summary: `Link a project to ${what}`,
    args: [PROJECT_ARG, { name: kind, required: true, description: kind === 'app' ? 'The app id at the apps service.' : 'The alias name at the pages service.' }],
    options: kind === 'alias'
      ? { team: TEAM, environment: { type: 'string', value: 'ENV', description: 'The environment the script reports (default production).' } }
      : { team: TEAM },
    examples: kind === 'app' ? ['svc errors links link-app web-shop shop-frontend'] : ['svc errors links link-alias web-shop shop --environment staging'],
    async run(ctx) {
      const api = ctx.api();
      const id = await resolveProject(api, ctx.args.project as string, ctx.opts.team);
      const env = (ctx.opts as { environment?: string }).environment;
      const body = kind === 'alias' && env !== undefined ? { environment: env } : {};
      const l = await api.put<Link>(`/api/v1/projects/${id}/links/${SEGMENT[kind]}/${seg(ctx.args[kind] as string)}`, body);
      ctx.out.result(l, () => ctx.out.line(`Linked project ${id} to ${kind} ${l.target}${l.environment ? ` (environment ${l.environment})` : ''}.`));
    },
  });
}

function unlinkCommand(kind: 'app' | 'alias') {
  return defineCommand({
    name: `unlink-${kind}`,
    summary: `Unlink a project from ${kind === 'app' ? 'an app' : 'a pages alias'}; releases already created stay`,
    args: [PROJECT_ARG, { name: kind, required: true, description: kind === 'app' ? 'The app id.' : 'The alias name.' }],
    options: { team: TEAM },
    examples: [`svc errors links unlink-${kind} web-shop ${kind === 'app' ? 'shop-frontend' : 'shop'}`],
    async run(ctx) {
      const api = ctx.api();
      const id = await resolveProject(api, ctx.args.project as string, ctx.opts.team);
      const l = await api.delete<Link>(`/api/v1/projects/${id}/links/${SEGMENT[kind]}/${seg(ctx.args[kind] as string)}`);
      ctx.out.result(l, () => ctx.out.line(`Unlinked project ${id} from ${kind} ${l.target}.`));
    },
  });
}

export const linksGroup = defineGroup('links', 'Link projects to apps and pages aliases of the family', [
  list, linkCommand('app'), linkCommand('alias'), unlinkCommand('app'), unlinkCommand('alias'),
]);
