/**
 * Response schemas drive fastify's serializer, which silently drops fields a schema does not declare and coerces
 * values to the declared types. Every /api/v1 operation is called over HTTP with representative data
 * (every-operation.ts); for each answer the object the handler sent (as JSON.stringify would write it) must equal
 * what the serializer wrote, field for field, and every operation must have been answered with a success.
 * Set ANSWERS_OUT=<file> to write the recorded answers (to compare two revisions by hand).
 */
import { writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { driveEveryOperation, startOperationsEnv, type Answer, type OperationsEnv } from './every-operation.ts';

interface Mismatch {
  route: string;
  sent: unknown;
  written: unknown;
}
const mismatches: Mismatch[] = [];
const handed = new WeakMap<FastifyReply, string>();

// Watch every app the test builds: what the handler hands over, then what the serializer writes.
vi.mock('../../core/http/create-app.ts', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../core/http/create-app.ts')>();
  return {
    ...orig,
    createApp: (opts: Parameters<typeof orig.createApp>[0]): FastifyInstance => {
      const app = orig.createApp(opts);
      app.addHook('preSerialization', async (_req, reply, payload) => {
        handed.set(reply, JSON.stringify(payload));
        return payload;
      });
      app.addHook('onSend', async (req, reply, payload) => {
        const sent = handed.get(reply);
        if (sent !== undefined && typeof payload === 'string' && req.url.startsWith('/api/v1/')) {
          const [a, b] = [JSON.parse(sent) as unknown, JSON.parse(payload) as unknown];
          // Field for field; the order of fields may differ.
          if (!isDeepStrictEqual(a, b)) mismatches.push({ route: `${req.method} ${req.routeOptions.url}`, sent: a, written: b });
        }
        return payload;
      });
      return app;
    },
  };
});

let env: OperationsEnv;
let answers: Answer[];
beforeAll(async () => {
  env = await startOperationsEnv();
  answers = await driveEveryOperation(env);
  if (process.env.ANSWERS_OUT) writeFileSync(process.env.ANSWERS_OUT, JSON.stringify(answers, null, 1));
}, 120_000);
afterAll(async () => env?.close());

describe('response schemas', () => {
  it('lose nothing: every answer is written exactly as the handler sent it', () => {
    expect(answers.length).toBeGreaterThan(100);
    expect(mismatches).toEqual([]);
  });

  it('are exercised: every operation of the document was answered with a success', async () => {
    const doc = (await (await fetch(`${env.plans.s.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    const answered = new Set(answers.filter((a) => a.status < 300).map((a) => a.op));
    expect(ops.filter((op) => !answered.has(op)), 'operations no call in every-operation.ts answers with a success: add one').toEqual([]);
    expect([...answered].filter((op) => !ops.includes(op))).toEqual([]);
  });
});
