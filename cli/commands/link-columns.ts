/** A project's link to an app or pages alias as the API shows it, and its table columns (docs/links.md). */
import type { Column } from '../output.ts';

export interface Link {
  id: string;
  project: number;
  kind: 'app' | 'alias';
  target: string;
  environment: string | null;
  state: 'ok' | 'stale';
  last_error: string | null;
  restart_requested: boolean;
  release: string | null;
  last_deploy_at: string | null;
  polled_at: string | null;
  created_at: string;
}

export const LINK_COLUMNS: Column<Link>[] = [
  { title: 'kind', value: (l) => l.kind },
  { title: 'target', value: (l) => l.target },
  { title: 'environment', value: (l) => l.environment },
  { title: 'state', value: (l) => l.state },
  { title: 'release', value: (l) => l.release },
  { title: 'last deploy', value: (l) => l.last_deploy_at },
  { title: 'last error', value: (l) => l.last_error },
];
