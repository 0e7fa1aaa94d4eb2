/**
 * Memory of a process tree as the issue counts it: PSS (each shared page split among the processes that map it)
 * from /proc/<pid>/smaps_rollup, summed over the descendants of a process. Linux only; NaN elsewhere.
 */
import { readdirSync, readFileSync } from 'node:fs';

function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields start after the last ') '.
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      out.set(Number(d), Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]));
    } catch {
      // The process ended meanwhile.
    }
  }
  return out;
}

/** Every process below `root` (not root itself). */
export function descendants(root: number): number[] {
  const ppid = parents();
  const found: number[] = [];
  const below = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, parent] of ppid) {
      if (below.has(parent) && !below.has(pid)) {
        below.add(pid);
        found.push(pid);
        grew = true;
      }
    }
  }
  return found;
}

export function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** PSS in MB of everything the bench process started (svc, the database and their children), itself excluded. */
export function childrenPssMb(): number {
  if (process.platform !== 'linux') return NaN;
  return descendants(process.pid).reduce((sum, pid) => sum + pssKb(pid), 0) / 1024;
}

/**
 * Samples childrenPssMb() every `everyMs` until stopped: the highest total, and what the process `pid` (svc) held in
 * that same sample (the rest is the database's).
 */
export function samplePss(everyMs: number, pid?: number): { stop(): { peak: number; peakOfPid: number } } {
  let peak = -Infinity;
  let peakOfPid = NaN;
  const sample = () => {
    const total = childrenPssMb();
    if (total > peak) {
      peak = total;
      peakOfPid = pid === undefined ? NaN : pssKb(pid) / 1024;
    }
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peak, peakOfPid };
    },
  };
}
