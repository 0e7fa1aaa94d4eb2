/**
 * Notifications: what your teams were told (new issues, regressions, spikes, budget alerts, account changes…),
 * newest first, with how their webhook deliveries went. GET /api/v1/notifications.
 */
import { api, call } from '../api/client.ts';
import type { List, Me, Notification } from '../api/views.ts';
import { fmtCount } from '../components/format.ts';
import { Empty, ErrorNote, Loading, MoreButton } from '../components/states.tsx';
import { Time } from '../components/time.tsx';
import { usePages } from '../components/use-pages.ts';

/** One line saying what the event is about, from the fields most payloads carry. */
function about(n: Notification): string {
  const d = (n.data ?? {}) as Record<string, unknown>;
  const pick = (o: unknown, k: string) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined);
  const text = pick(d.issue, 'title') ?? pick(d.key, 'name') ?? pick(d.account, 'name') ?? pick(d.team, 'name') ?? d.message;
  return typeof text === 'string' ? text : '';
}

export function Notifications({ me }: { me: Me }) {
  const list = usePages((cursor) => call<List<Notification>>(api.GET('/api/v1/notifications', { params: { query: { limit: '100', ...(cursor ? { cursor } : {}) } } })), []);
  const teamName = (id: string) => me.teams.find((t) => t.id === id)?.name ?? id;
  return (
    <section aria-labelledby="notes-h">
      <h1 id="notes-h">Notifications</h1>
      {list.loading && !list.items && <Loading what="notifications" />}
      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {list.items?.length === 0 && (
        <Empty title="Nothing to tell yet">
          <p>New issues, regressions, spikes, budget alerts and account changes of your teams appear here. To receive them elsewhere, add a <a href="/settings/webhooks">webhook</a>.</p>
        </Empty>
      )}
      {list.items && list.items.length > 0 && (
        <div class="table-wrap" tabIndex={0}>
          <table aria-label="Notifications">
            <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">About</th><th scope="col">Team</th><th scope="col">Webhook deliveries</th></tr></thead>
            <tbody>{list.items.map((n) => (
              <tr key={n.id}>
                <td><Time at={n.created_at} relative /></td>
                <td><code>{n.kind}</code></td>
                <td>{about(n)}</td>
                <td>{teamName(n.team)}</td>
                <td>{n.deliveries.total === 0 ? 'no webhook' : `${fmtCount(n.deliveries.delivered, 'delivered', 'delivered')}${n.deliveries.pending ? `, ${n.deliveries.pending} pending` : ''}${n.deliveries.failed ? `, ${n.deliveries.failed} failed` : ''}`}</td>
              </tr>
            ))}</tbody>
          </table>
        </div>
      )}
      <MoreButton pages={list} what="notifications" />
    </section>
  );
}
