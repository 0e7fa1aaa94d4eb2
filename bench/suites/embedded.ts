/**
 * The embedded default (issue 14, point 4): what `npm start` without DATABASE_URL costs. Per engine and round, in a fresh directory: the first start (from nothing to svc listening, migrations included), the peak
 * memory while starting, the memory once idle, then a bounded ingest load (5 KB gzip envelopes at a fixed
 * concurrency for a fixed time) with the memory under it and the accepted events/s; every accepted event must reach
 * the database. Memory is PSS summed over every process the bench started (svc, the database and their children).
 * Engines alternate within a round (the order flips each round); the report gives medians.
 *
 * Options: --engines embedded,server (all), --rounds N (3), --seconds S (15, the load), --concurrency C (32), --idle-seconds S (10), --write
 * (update docs/performance.md). With DATABASE_URL, svc on a fresh database of that server runs too, as the
 * real-Postgres throughput the 60 % target refers to; without it there is no reference and no share.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchSuite } from '../run.ts';
import { numberOption } from '../options.ts';
import { EMBEDDED, serverPostgres, type Engine } from '../embedded/engines.ts';
import { renderEmbeddedReport, writeEmbeddedSection, type EngineRun } from '../embedded/report.ts';
import { childrenPssMb, pssKb, samplePss } from '../embedded/tree-pss.ts';
import { envelopeFactory } from '../ingest/event-fixture.ts';
import { runLoad } from '../ingest/load.ts';
import { describeIngestMachine } from '../ingest/report.ts';
import { benchProject, waitStored } from '../ingest/svc-api.ts';

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

interface Load { seconds: number; concurrency: number; idleSeconds: number }

async function measure(engine: Engine, load: Load): Promise<EngineRun> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-embedded-'));
  const starting = samplePss(200);
  const t0 = performance.now();
  let running;
  try {
    running = await engine.start(dir);
  } catch (err) {
    starting.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const firstStartSeconds = (performance.now() - t0) / 1000;
  const startPeakPss = starting.stop().peak;
  try {
    await sleep(load.idleSeconds * 1000);
    const idle: Array<[number, number]> = [];
    for (let i = 0; i < 3; i++, await sleep(500)) idle.push([childrenPssMb(), pssKb(running.svc.pid) / 1024]);
    const [idlePss, idleSvcPss] = idle.sort((a, b) => a[0] - b[0])[1];
    const base = `http://127.0.0.1:${running.svc.port}`;
    const project = await benchProject(base);
    const factory = envelopeFactory();
    const post = (ms: number) => runLoad({ origin: base, path: project.path, headers: project.headers, body: factory.body, concurrency: load.concurrency, durationMs: ms });
    const warm = await post(2000);
    const loaded = samplePss(500, running.svc.pid);
    const r = await post(load.seconds * 1000);
    const { peak: loadPss, peakOfPid: loadSvcPss } = loaded.stop();
    const accepted = warm.ok + r.ok;
    const { stored } = await waitStored(base, project.id, accepted, performance.now());
    const run: EngineRun = {
      engine: engine.name, measuresMemory: engine.measuresMemory, firstStartSeconds, startPeakPss,
      idlePss, idleSvcPss, loadPss, loadSvcPss, eventsPerSec: r.ok / r.seconds, accepted, stored,
      refused: Object.entries(r.statuses).filter(([s]) => s !== '200').reduce((n, [, c]) => n + c, 0) + r.errors,
    };
    process.stdout.write(`${engine.name}: first start ${firstStartSeconds.toFixed(2)} s, peak PSS starting ${startPeakPss.toFixed(0)} MB, ` +
      `idle ${idlePss.toFixed(0)} MB (svc ${idleSvcPss.toFixed(0)}), under load ${loadPss.toFixed(0)} MB (svc ${loadSvcPss.toFixed(0)}), ${run.eventsPerSec.toFixed(0)} events/s, stored ${stored}/${accepted}\n`);
    return run;
  } finally {
    await running.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const suite: BenchSuite = {
  name: 'embedded',
  description: 'the embedded default, Postgres as a child process (first start, PSS idle and under ingest, events/s), against a Postgres server',
  async run(args) {
    const load: Load = { seconds: numberOption(args, 'seconds', 15), concurrency: numberOption(args, 'concurrency', 32), idleSeconds: numberOption(args, 'idle-seconds', 10) };
    const rounds = numberOption(args, 'rounds', 3);
    const databaseUrl = process.env.DATABASE_URL || undefined;
    const only = args.includes('--engines') ? args[args.indexOf('--engines') + 1]?.split(',') : undefined;
    const engines = [EMBEDDED, ...(databaseUrl ? [serverPostgres(databaseUrl)] : [])].filter((e) => !only || only.includes(e.id));
    const runs: EngineRun[] = [];
    for (let round = 0; round < rounds; round++) {
      process.stdout.write(`round ${round + 1} of ${rounds}\n`);
      for (const engine of round % 2 === 0 ? engines : [...engines].reverse()) runs.push(await measure(engine, load));
    }
    const machine = await describeIngestMachine(databaseUrl, undefined);
    const report = renderEmbeddedReport({ runs, machine, date: new Date().toISOString().slice(0, 10), rounds, ...load });
    process.stdout.write(`\n${report}\n`);
    if (args.includes('--write')) writeEmbeddedSection(report);
  },
};
