/**
 * The contract we speak with each peer (docs/links.md), in one place: where a link lives on the peer, what we send
 * there, where its deploys are listed and what release a deploy becomes.
 *   app   (apps service)   PUT|DELETE /api/v1/apps/{id}/integrations/errors  {"dsn","project","errors_url"}
 *                          GET /api/v1/apps/{id}/deploys?cursor=          items {id, release_number, created_at, status}
 *                          POST /api/v1/apps/{id}/restart
 *   alias (pages service)  PUT|DELETE /api/v1/aliases/{name}/scripts/errors {"src","release","environment"}
 *                          (release: `<alias>@<deploy id>` of the alias's newest deploy, null before the first)
 *                          GET /api/v1/deploys?alias={name}&cursor=       items {id, alias, created_at, status}
 */
import type { PeerName } from './peer-client.ts';

export type LinkKind = 'app' | 'alias';
export const LINK_KINDS: readonly LinkKind[] = ['app', 'alias'];

/** What a link sends: the project's current key; for an alias its environment and the release its pages report. */
export interface LinkSubject {
  projectId: number;
  publicKey: string;
  dsn: string;
  environment: string | null;
  release: string | null;
}

export interface PeerDeploy {
  id: string;
  release_number?: number;
  created_at: string;
  status?: string;
}

interface KindContract {
  peer: PeerName;
  label(target: string): string;
  linkPath(target: string): string;
  payload(target: string, s: LinkSubject, publicUrl: string): Record<string, unknown>;
  deploysPath(target: string, cursor: string | null): string;
  /** The release a deploy becomes; null when the item cannot name one. */
  release(target: string, d: PeerDeploy): string | null;
  restartPath: ((target: string) => string) | null;
}

const enc = encodeURIComponent;
const cursorParam = (cursor: string | null) => (cursor === null ? '' : enc(cursor));

export const KIND: Record<LinkKind, KindContract> = {
  app: {
    peer: 'apps',
    label: (t) => `app "${t}"`,
    linkPath: (t) => `/api/v1/apps/${enc(t)}/integrations/errors`,
    payload: (_t, s, publicUrl) => ({ dsn: s.dsn, project: String(s.projectId), errors_url: publicUrl }),
    deploysPath: (t, c) => `/api/v1/apps/${enc(t)}/deploys?cursor=${cursorParam(c)}`,
    release: (t, d) => (Number.isSafeInteger(d.release_number) ? `${t}@${d.release_number}` : null),
    restartPath: (t) => `/api/v1/apps/${enc(t)}/restart`,
  },
  alias: {
    peer: 'pages',
    label: (t) => `alias "${t}"`,
    linkPath: (t) => `/api/v1/aliases/${enc(t)}/scripts/errors`,
    payload: (t, s, publicUrl) => ({ src: `${publicUrl}/js/${s.publicKey}.js`, release: s.release, environment: s.environment ?? 'production' }),
    deploysPath: (t, c) => `/api/v1/deploys?alias=${enc(t)}&cursor=${cursorParam(c)}`,
    release: (t, d) => (d.id ? `${t}@${d.id}` : null),
    restartPath: null,
  },
};

/** App ids and alias names as the peers make them: letters, digits, dots, underscores and hyphens. */
export const TARGET_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$';
