/**
 * Memory of a process as an operator would count it: PSS (proportional set size: shared pages split between the
 * processes sharing them) summed over the process and all its descendants, read from /proc/<pid>/smaps_rollup
 * (Linux). A sampler keeps the peak while a load runs.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** PSS of pid and its descendants, in MB; NaN when /proc cannot be read (not Linux, or the process is gone). */
export function treePssMb(pid: number): number {
  let kb = 0;
  for (const p of processTree(pid)) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch {
      if (p === pid) return NaN;
    }
  }
  return kb / 1024;
}

function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${out[i]}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        for (const c of readFileSync(`/proc/${out[i]}/task/${t}/children`, 'utf8').trim().split(/\s+/)) if (c) out.push(Number(c));
      } catch {
        // the task ended meanwhile
      }
    }
  }
  return out;
}

export interface PssSampler {
  /** Highest PSS seen so far, MB. */
  peak(): number;
  stop(): number;
}

/** Samples treePssMb(pid) every intervalMs until stopped. */
export function samplePss(pid: number, intervalMs = 25): PssSampler {
  let peak = treePssMb(pid);
  const timer = setInterval(() => {
    const v = treePssMb(pid);
    if (v > peak) peak = v;
  }, intervalMs);
  return {
    peak: () => peak,
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}
