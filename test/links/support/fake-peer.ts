/**
 * A local apps or pages service that speaks the link contract of docs/links.md: apps with their errors integration,
 * restart and deploys; pages aliases with their errors script and deploys. Rights per app or alias: this service's
 * own token may change any of them; a person's short-lived access token (verified against our JWKS with jose) only
 * those `allow` names for its subject. Everything sent is recorded (method, path, query, who, body). `mode` makes
 * it fail: `down` cuts every connection, `garbage` answers 200 with a body that is not JSON, `hang` never answers;
 * `delayMs` makes it answer late (a call in flight while something else happens).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';

export type PeerKind = 'apps' | 'pages';

export interface FakeDeploy {
  id: string;
  release_number?: number;
  alias?: string;
  created_at: string;
  status: string;
}

export interface Sent {
  method: string;
  path: string;
  query: Record<string, string>;
  /** 'service', 'caller:<sub>' or 'invalid'. */
  who: string;
  body: unknown;
}

interface Target {
  linked: Record<string, unknown> | null;
  restarts: number;
  deploys: FakeDeploy[];
  callers: Set<string>;
}

export const PEER_SERVICE_TOKEN = { apps: 'apps-service-token-for-errors', pages: 'pages-service-token-for-errors' };
const PAGE_SIZE = 2;

export class FakePeer {
  readonly kind: PeerKind;
  url = '';
  sent: Sent[] = [];
  mode: 'ok' | 'down' | 'garbage' | 'hang' = 'ok';
  delayMs = 0;
  targets = new Map<string, Target>();
  #server: Server;
  #jwks: JWTVerifyGetKey | undefined;
  #issuer = '';
  #hanging: ServerResponse[] = [];

  constructor(kind: PeerKind) {
    this.kind = kind;
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.#server.address() as { port: number }).port}`;
    return this;
  }

  /** Our public URL: the issuer of the access tokens and the home of the JWKS. */
  trust(svcUrl: string): void {
    this.#issuer = svcUrl;
    this.#jwks = createRemoteJWKSet(new URL(`${svcUrl}/.well-known/jwks.json`));
  }

  add(name: string, deploys: FakeDeploy[] = []): Target {
    const t: Target = { linked: null, restarts: 0, deploys, callers: new Set() };
    this.targets.set(name, t);
    return t;
  }

  /** Lets a person (the `sub` of our access token) change this app or alias. */
  allow(name: string, sub: string): void {
    this.targets.get(name)!.callers.add(sub);
  }

  /** What was sent to one path (no query), in order. */
  to(path: string): Sent[] {
    return this.sent.filter((s) => s.path === path);
  }

  close(): Promise<void> {
    for (const r of this.#hanging) r.destroy();
    this.#server.closeAllConnections();
    return new Promise((r) => this.#server.close(() => r()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const who = await this.#who(req.headers.authorization);
    this.sent.push({ method: req.method ?? '', path: u.pathname, query: Object.fromEntries(u.searchParams), who, body: text ? JSON.parse(text) : null });
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.mode === 'down') return void req.socket.destroy();
    if (this.mode === 'hang') return void this.#hanging.push(res);
    if (this.mode === 'garbage') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>upstream proxy error</html>');
    const json = (status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const error = (status: number, code: string, message: string) => json(status, { error: { code, message, details: {} } });
    if (who === 'invalid') return error(401, 'invalid_token', 'The token is not valid.');
    const route = this.#route(req.method ?? '', u);
    if (!route) return error(404, 'route_not_found', 'No route matches this method and path.');
    const t = this.targets.get(route.name);
    if (!t) return error(404, 'not_found', `No ${this.kind === 'apps' ? 'app' : 'alias'} named ${route.name}.`);
    if (route.op === 'deploys') return json(200, this.#page(t.deploys, u.searchParams.get('cursor')));
    if (route.op === 'show') return json(200, { id: route.name, name: route.name });
    if (who !== 'service' && !t.callers.has(who.slice('caller:'.length))) return error(403, 'forbidden', `You may not change ${route.name}.`);
    if (u.searchParams.get('dry_run') === 'true') return json(200, { dry_run: true, allowed: true });
    if (route.op === 'restart') {
      t.restarts++;
      return json(202, { id: route.name, restarting: true });
    }
    if (route.op === 'unlink') {
      if (!t.linked) return error(404, 'not_found', `${route.name} has no errors link.`);
      t.linked = null;
      return json(200, { removed: true });
    }
    t.linked = JSON.parse(text) as Record<string, unknown>;
    return json(200, t.linked);
  }

  #route(method: string, u: URL): { name: string; op: 'show' | 'link' | 'unlink' | 'restart' | 'deploys' } | null {
    const p = u.pathname.split('/').map(decodeURIComponent);
    if (this.kind === 'pages') {
      if (method === 'GET' && u.pathname === '/api/v1/deploys') return { name: u.searchParams.get('alias') ?? '', op: 'deploys' };
      if (p.length === 7 && p[3] === 'aliases' && p[5] === 'scripts' && p[6] === 'errors') return method === 'PUT' ? { name: p[4], op: 'link' } : method === 'DELETE' ? { name: p[4], op: 'unlink' } : null;
      return null;
    }
    if (p[3] !== 'apps' || !p[4]) return null;
    if (p.length === 5 && method === 'GET') return { name: p[4], op: 'show' };
    if (p.length === 6 && p[5] === 'deploys' && method === 'GET') return { name: p[4], op: 'deploys' };
    if (p.length === 6 && p[5] === 'restart' && method === 'POST') return { name: p[4], op: 'restart' };
    if (p.length === 7 && p[5] === 'integrations' && p[6] === 'errors') return method === 'PUT' ? { name: p[4], op: 'link' } : method === 'DELETE' ? { name: p[4], op: 'unlink' } : null;
    return null;
  }

  #page(items: FakeDeploy[], cursor: string | null) {
    const from = cursor ? Number(cursor) : 0;
    const next = from + PAGE_SIZE < items.length ? String(from + PAGE_SIZE) : null;
    return { items: items.slice(from, from + PAGE_SIZE), next_cursor: next };
  }

  async #who(header: string | undefined): Promise<string> {
    const token = /^Bearer (\S+)$/.exec(header ?? '')?.[1];
    if (!token) return 'invalid';
    if (token === PEER_SERVICE_TOKEN[this.kind]) return 'service';
    if (!this.#jwks) return 'invalid';
    try {
      const { payload } = await jwtVerify(token, this.#jwks, { issuer: this.#issuer, audience: this.#issuer, typ: 'at+jwt' });
      return `caller:${String(payload.sub)}`;
    } catch {
      return 'invalid';
    }
  }
}

export interface FakePeers {
  apps: FakePeer;
  pages: FakePeer;
  /** The settings that point a node at both fakes. */
  env: Record<string, string>;
  /** Our public URL, once the node listens (its access tokens and JWKS). */
  trust(url: string): void;
  close(): Promise<void>;
}

export async function startFakePeers(): Promise<FakePeers> {
  const [apps, pages] = await Promise.all([new FakePeer('apps').start(), new FakePeer('pages').start()]);
  return {
    apps,
    pages,
    env: { SVC_APPS_URL: apps.url, SVC_APPS_TOKEN: PEER_SERVICE_TOKEN.apps, SVC_PAGES_URL: pages.url, SVC_PAGES_TOKEN: PEER_SERVICE_TOKEN.pages, SVC_ALLOW_PRIVATE_PEERS: 'true' },
    trust: (url) => {
      apps.trust(url);
      pages.trust(url);
    },
    close: async () => void (await Promise.all([apps.close(), pages.close()])),
  };
}
