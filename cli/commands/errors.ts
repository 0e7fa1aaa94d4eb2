/** svc errors …: error tracking (projects and DSNs, links, issues, releases, ingest stats) over the REST API. */
import { defineGroup } from '../command.ts';
import { issueCommand, issuesGroup, releasesGroup } from './errors-issues.ts';
import { linksGroup } from './errors-links.ts';
import { projectsGroup } from './errors-projects.ts';
import { statsCommand } from './errors-stats.ts';

export const errorsGroup = defineGroup('errors', 'Error tracking: projects and DSNs, issues, releases, ingest stats', [projectsGroup, linksGroup, issuesGroup, issueCommand, releasesGroup, statsCommand]);
