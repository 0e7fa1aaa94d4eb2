/**
 * Compression settings (issue 13 point 1, docs/compression.md):
 * - GET/PUT /api/v1/settings/compression (superusers): the instance mode, the last turns never touched, model rules.
 * - GET/PUT /api/v1/teams/{team}/compression: a team's optional mode (read: members; set: team admins, since a
 *   team can only lower what the instance allows). The proxy reads a team's mode with each key record, so a change
 *   drops the team's keys from the key cache on every node.
 * Keys carry their mode in the key API (keys-routes.ts); the savings report is in compression-report.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { requireSuperuser, requireTeam } from '../../core/auth/principal.ts';
import { rfc3339 } from '../../core/clock.ts';
import { GATEWAY_KEYS_CACHE } from '../../core/ai/cache-names.ts';
import {
  COMPRESSION_MODES, COMPRESSION_SETTINGS_CACHE, readCompressionSettings, type CompressionMode, type CompressionRule, type CompressionSettings,
  type SummarySettings,
} from '../../core/ai/compression-settings.ts';
import { principal } from '../auth-hook.ts';
import { resolveTeamId } from '../team-of-request.ts';
import { loadKnownModels, unknownModelWarnings } from '../ai/known-models.ts';
import { checkRules, checkSummary, SETTINGS_BODY } from './compression-input.ts';
import { compressionReportRoutes } from './compression-report.ts';
import { CHANGED_COMPRESSION_SETTINGS, COMPRESSION_SETTINGS, TEAM_COMPRESSION } from './compression-schemas.ts';

const TEAM_PARAMS = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const TEAM_BODY = {
  type: 'object', additionalProperties: false, required: ['mode'],
  properties: { mode: { type: ['string', 'null'], enum: [...COMPRESSION_MODES, null], description: 'null: inherit the instance mode.' } },
} as const;

function settingsView(s: CompressionSettings) {
  return { mode: s.mode, keep_last_turns: s.keepLastTurns, rules: s.rules, summary: s.summary, updated_at: rfc3339(s.updatedAt) };
}

export function compressionRoutes(app: FastifyInstance, ctx: AppContext): void {
  compressionReportRoutes(app, ctx);
  app.get('/api/v1/settings/compression', {
    schema: { tags: ['ai'], summary: 'Show the compression settings (superusers): instance mode, last turns kept, model rules, summaries', response: { 200: COMPRESSION_SETTINGS } },
  }, async (req) => {
    requireSuperuser(principal(req), 'read');
    return settingsView(await readCompressionSettings(ctx.db));
  });

  app.put('/api/v1/settings/compression', {
    schema: { tags: ['ai'], summary: 'Set the compression settings (superusers); a rule pattern that matches no known model is kept with a warning', body: SETTINGS_BODY, response: { 200: CHANGED_COMPRESSION_SETTINGS } },
  }, async (req) => {
    const p = principal(req);
    requireSuperuser(p);
    const b = req.body as { mode: CompressionMode; keep_last_turns: number; rules: CompressionRule[]; summary?: SummarySettings | null };
    const rules = checkRules(b.rules);
    // Absent keeps the summary setting (a client that does not know it must not turn summaries off).
    const summary = b.summary === undefined ? (await readCompressionSettings(ctx.db)).summary : await checkSummary(ctx.db, b.summary);
    await ctx.db.query(
      `INSERT INTO compression_settings (id, mode, keep_last_turns, rules, summary, updated_by, updated_at) VALUES (true, $1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO UPDATE SET mode = $1, keep_last_turns = $2, rules = $3, summary = $4, updated_by = $5, updated_at = $6`,
      [b.mode, b.keep_last_turns, JSON.stringify(rules), summary === null ? null : JSON.stringify(summary), p.userId, new Date(ctx.clock.now())],
    );
    await ctx.caches.invalidate(COMPRESSION_SETTINGS_CACHE);
    const warnings = rules.length > 0 ? unknownModelWarnings(rules.map((r) => r.pattern), await loadKnownModels(ctx.db), 'rules') : [];
    return { ...settingsView(await readCompressionSettings(ctx.db)), ...(warnings.length ? { warnings } : {}) };
  });

  app.get('/api/v1/teams/:id/compression', { schema: { tags: ['teams'], summary: "Show a team's compression mode (null: inherit)", params: TEAM_PARAMS, response: { 200: TEAM_COMPRESSION } } }, async (req) => {
    const id = await resolveTeamId(ctx.db, (req.params as { id: string }).id);
    requireTeam(principal(req), id, 'read');
    const r = await ctx.db.query<{ compression: CompressionMode | null }>('SELECT compression FROM teams WHERE id = $1', [id]);
    return { team: id, mode: r.rows[0]?.compression ?? null };
  });

  app.put('/api/v1/teams/:id/compression', {
    schema: { tags: ['teams'], summary: "Set a team's compression mode (team admins); it can only lower the instance mode", params: TEAM_PARAMS, body: TEAM_BODY, response: { 200: TEAM_COMPRESSION } },
  }, async (req) => {
    const id = await resolveTeamId(ctx.db, (req.params as { id: string }).id);
    requireTeam(principal(req), id, 'manage');
    const mode = (req.body as { mode: CompressionMode | null }).mode;
    await ctx.db.query('UPDATE teams SET compression = $2 WHERE id = $1', [id, mode]);
    const keys = await ctx.db.query<{ key_hash: string }>('SELECT key_hash FROM gateway_keys WHERE team_id = $1 AND deleted_at IS NULL', [id]);
    for (const k of keys.rows) await ctx.caches.invalidate(GATEWAY_KEYS_CACHE, k.key_hash);
    return { team: id, mode };
  });
}
