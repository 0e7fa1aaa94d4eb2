/**
 * Which project a request may write to: the project of the URL must exist (project_not_found, 404) and the client
 * key must be an active key of that project (unknown_client_key, 403, also for a key of another project or a
 * revoked one). An envelope DSN that names another project than the URL is refused the same way.
 */
import { svcError } from '../core/errors.ts';
import type { ClientKey } from './lib/client-auth.ts';
import type { IngestProject, ProjectLookup } from './project-lookup.ts';

/** Project ids in ingest URLs are numeric (SDKs require it): `/api/v1/…` is never taken for a project. */
export function parseProjectId(raw: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw svcError('invalid_project_id', `Project ids are numeric; "${raw.slice(0, 40)}" is not one.`);
  }
  return Number(raw);
}

export async function authorizeClient(lookup: ProjectLookup, projectId: number, key: ClientKey): Promise<IngestProject> {
  if (key.dsnProjectId !== undefined && key.dsnProjectId !== String(projectId)) {
    throw svcError('unknown_client_key', "The envelope's DSN names another project than the URL.");
  }
  const [project, record] = await Promise.all([lookup.project(projectId), lookup.clientKey(key.publicKey)]);
  if (!project) throw svcError('project_not_found', `The project ${projectId} does not exist.`);
  if (!record || !record.active || record.projectId !== projectId) throw svcError('unknown_client_key');
  return project;
}
