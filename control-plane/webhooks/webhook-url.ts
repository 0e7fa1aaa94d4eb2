/** Validation of a webhook target: an absolute http(s) URL, and not a private address unless the instance allows it. */
import { svcError } from '../../core/errors.ts';
import { isPrivateHost } from '../../core/net/private-address.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Returns the normalised URL, or throws invalid_webhook_url / private_target_refused. The URL parser has already
 * turned every spelling of an IPv4 host (2130706433, 0177.0.0.1, 0x7f.1, 127.1) into dotted decimal; names are
 * checked when they are resolved, at each delivery (core/net/guarded-agent.ts).
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw svcError('invalid_webhook_url', `"${raw.slice(0, 200)}" is not an absolute URL; use http:// or https://.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw svcError('invalid_webhook_url', `The webhook URL must use http or https, not ${url.protocol.replace(/:$/, '')}.`);
  }
  if (!url.hostname) throw svcError('invalid_webhook_url', 'The webhook URL has no host.');
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) throw svcError('invalid_webhook_url', `The webhook URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  if (url.username || url.password) throw svcError('invalid_webhook_url', 'The webhook URL must not carry a user name or password; put a token in the path or query instead.');
  if (!allowPrivate && isPrivateHost(url.hostname)) {
    throw svcError('private_target_refused', `The webhook host ${url.hostname} is a private, loopback or link-local address, which this instance does not allow (set SVC_ALLOW_PRIVATE_WEBHOOKS=true to allow it).`, { field: 'url', host: url.hostname });
  }
  url.hash = '';
  return url.toString();
}
