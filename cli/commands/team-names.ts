/** Team names by id, for tables that would otherwise show a team's hex id (the API answers with ids). */
import type { ApiClient } from '../api-client.ts';

export async function teamNames(api: ApiClient): Promise<(id: string) => string> {
  const teams = await api.listAll<{ id: string; name: string }>('/api/v1/teams');
  const names = new Map(teams.map((t) => [t.id, t.name]));
  return (id) => names.get(id) ?? id;
}
