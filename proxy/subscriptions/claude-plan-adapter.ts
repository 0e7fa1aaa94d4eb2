/**
 * Claude plans: the messages style at the plan's API with `Authorization: Bearer <OAuth access token>` instead of an
 * API key, and the OAuth beta header (`anthropic-beta: oauth-2025-04-20`, reference subscription-accounts.md) merged
 * with the betas the client asked for. The body goes through untouched.
 */
import type { PlanAdapter } from './plan-adapter.ts';
import { withoutCredentials } from './plan-adapter.ts';

function mergeList(a: string | undefined, b: string | undefined): string | undefined {
  const items = [...(a ?? '').split(','), ...(b ?? '').split(',')].map((s) => s.trim()).filter(Boolean);
  return items.length === 0 ? undefined : [...new Set(items)].join(',');
}

export const claudePlanAdapter: PlanAdapter = {
  request(req, token, profile) {
    const headers = withoutCredentials(req.headers);
    for (const [k, v] of Object.entries(profile.api_headers)) {
      const name = k.toLowerCase();
      if (name === 'anthropic-beta') continue;
      headers[name] ??= v;
    }
    const beta = mergeList(profile.api_headers['anthropic-beta'], headers['anthropic-beta']);
    if (beta) headers['anthropic-beta'] = beta;
    headers.authorization = `Bearer ${token.access}`;
    // Streams pass through as they are: whether the client streams does not matter here.
    return { path: req.path, headers, body: req.body, clientStream: false };
  },
};
