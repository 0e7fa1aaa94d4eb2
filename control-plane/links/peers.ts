/**
 * The configured link peers of this node (SVC_APPS_URL + SVC_APPS_TOKEN, SVC_PAGES_URL + SVC_PAGES_TOKEN), sharing
 * one guarded agent: private addresses are refused unless SVC_ALLOW_PRIVATE_PEERS is set. An unset peer makes every
 * link to it answer 503 integration_not_configured.
 */
import type { AppContext } from '../../core/context.ts';
import { svcError } from '../../core/errors.ts';
import { guardedAgent } from '../../core/net/guarded-agent.ts';
import { PeerClient, PEER_TITLE, type PeerName } from './peer-client.ts';

export class Peers {
  #clients: Partial<Record<PeerName, PeerClient>> = {};
  #close: () => Promise<void>;

  constructor(ctx: AppContext) {
    const c = ctx.config;
    const agent = guardedAgent({ allowPrivate: c.allowPrivatePeers, optIn: 'SVC_ALLOW_PRIVATE_PEERS', connectTimeoutMs: c.peerTimeoutMs });
    if (c.appsPeer) this.#clients.apps = new PeerClient('apps', c.appsPeer, agent, c.peerTimeoutMs);
    if (c.pagesPeer) this.#clients.pages = new PeerClient('pages', c.pagesPeer, agent, c.peerTimeoutMs);
    this.#close = () => agent.close().catch(() => {});
  }

  /** The peer's client, or 503 integration_not_configured naming the settings to set. */
  get(name: PeerName): PeerClient {
    const client = this.#clients[name];
    if (client) return client;
    const v = name === 'apps' ? 'SVC_APPS_URL and SVC_APPS_TOKEN' : 'SVC_PAGES_URL and SVC_PAGES_TOKEN';
    throw svcError('integration_not_configured', `${PEER_TITLE[name]} is not configured on this instance: set ${v} (docs/links.md).`, { peer: name });
  }

  has(name: PeerName): boolean {
    return this.#clients[name] !== undefined;
  }

  close(): Promise<void> {
    return this.#close();
  }
}
