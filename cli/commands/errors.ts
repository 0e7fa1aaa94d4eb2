/** svc errors …: error tracking (projects and DSNs, issues, releases) over the REST API. */
import { defineGroup } from '../command.ts';
import { issueCommand, issuesGroup, releasesGroup } from './errors-issues.ts';
import { projectsGroup } from './errors-projects.ts';

export const errorsGroup = defineGroup('errors', 'Error tracking: projects and DSNs, issues, releases', [projectsGroup, issuesGroup, issueCommand, releasesGroup]);
