/**
 * A team's limits (docs/limits.md): as one line of text, and the superusers' form that sets them (an empty field is
 * unlimited). PUT /api/v1/teams/{id}/limits. Used by the teams page and the instance page.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import type { Team } from '../api/views.ts';
import { Field, FormError } from './form.tsx';
import { fmtCount, fmtTokens } from './format.ts';
import { onSubmit, useAction } from './use-action.ts';

export function limitsText(l: Team['limits']): string {
  const parts = [];
  if (l?.['ai.keys'] != null) parts.push(fmtCount(l['ai.keys'], 'gateway key'));
  if (l?.['ai.tokens'] != null) parts.push(`${fmtTokens(l['ai.tokens'])} a month`);
  if (l?.['errors.events'] != null) parts.push(`${fmtCount(l['errors.events'], 'error event')} a month`);
  return parts.length ? parts.join(', ') : 'no limits';
}

const LIMITS = [
  { name: 'ai.keys', label: 'Gateway keys' },
  { name: 'ai.tokens', label: 'AI tokens a month' },
  { name: 'errors.events', label: 'Error events a month' },
] as const;

/** Superusers set a team's limits; an empty field is unlimited. PUT /api/v1/teams/{id}/limits. */
export function TeamLimits({ team, onSaved }: { team: Team; onSaved: () => void }) {
  const [v, setV] = useState<Record<string, string>>(Object.fromEntries(LIMITS.map((l) => [l.name, team.limits?.[l.name] == null ? '' : String(team.limits[l.name])])));
  const save = useAction(() => call(api.PUT('/api/v1/teams/{id}/limits', {
    params: { path: { id: team.id } },
    body: Object.fromEntries(LIMITS.map((l) => [l.name, v[l.name].trim() === '' ? null : Number(v[l.name])])),
  })), onSaved);
  return (
    <form class="row" aria-label={`Limits of ${team.name}`} onSubmit={onSubmit(save)}>
      {LIMITS.map((l) => (
        <Field key={l.name} label={l.label} name={l.name} error={save.error}>
          {(p) => <input {...p} type="number" min="0" placeholder="unlimited" value={v[l.name]} onInput={(e) => setV({ ...v, [l.name]: e.currentTarget.value })} />}
        </Field>
      ))}
      <button type="submit">Save limits</button>
      <FormError error={save.error} fields={LIMITS.map((l) => l.name)} />
    </form>
  );
}
