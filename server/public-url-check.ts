/**
 * SVC_PUBLIC_URL with split roles (docs/deployment.md). Behind a load balancer a node's own address is not where
 * clients reach the service: a control-plane node builds DSNs and links from SVC_PUBLIC_URL but does not accept
 * error events, so without it every DSN it hands out would name a node that answers 404 to ingest. It is required
 * there; a proxy node only warns (its reporting script would name the node instead of the balancer).
 */
import { ConfigError, type Role } from '../core/config.ts';

/** Throws for a control-plane node without SVC_PUBLIC_URL; returns the warning a proxy node logs, if any. */
export function checkPublicUrlForRole(role: Role, env: Record<string, string | undefined> = process.env): string | undefined {
  if (env.SVC_PUBLIC_URL) return undefined;
  if (role === 'control-plane') {
    throw new ConfigError(
      'SVC_PUBLIC_URL',
      "is required with --role control-plane: DSNs and links are built from it, and this node does not accept error events (set it to the load balancer's address, e.g. https://svc.example.com)",
    );
  }
  if (role === 'proxy') return "SVC_PUBLIC_URL is not set: the reporting script (/js/{key}.js) names this node's own address; behind a load balancer set it to the balancer's address";
  return undefined;
}
