/** Writes an SVC_PROVIDER_PROFILES file that points each given fake plan provider's flavor at the fake. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakePlanProvider, PlanFlavor } from './fake-plan-provider.ts';

const PROVIDER: Record<PlanFlavor, string> = { claude: 'anthropic', chatgpt: 'openai', gemini: 'gemini' };

export function writePlanProfiles(fakes: FakePlanProvider[], extra: Record<string, Record<string, unknown>> = {}): string {
  const json: Record<string, Record<string, unknown>> = {};
  for (const f of fakes) json[PROVIDER[f.flavor]] = { ...f.profile(), ...extra[PROVIDER[f.flavor]] };
  const file = join(mkdtempSync(join(tmpdir(), 'svc-profiles-')), 'profiles.json');
  writeFileSync(file, JSON.stringify(json, null, 2));
  return file;
}
