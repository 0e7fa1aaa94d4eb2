/**
 * The generated part of the compression corpus: `count` sessions (seeds from `firstSeed`; the default thresholds
 * were chosen on seeds 1000…, and seeds 2000… are a held-out check) from test/compression/agent-session.ts with
 * parameters drawn from fixed ranges by seed (written in docs/compression.md; not tuned to the compressor):
 * 15–150 tool rounds (31–301 turns), repeat rate of file reads 0.15–0.4, files of 40–400 lines, test logs of
 * 50–600 lines, a user remark every 6–12 rounds.
 */
import { generateSession, type Session } from '../../test/compression/agent-session.ts';

export function sessionCorpus(count: number, firstSeed = 1000): Session[] {
  const out: Session[] = [];
  for (let i = 0; i < count; i++) {
    const seed = firstSeed + i;
    // A fixed spread over the ranges, reproducible without a random generator.
    const f = (k: number) => ((seed * k) % 97) / 96;
    out.push(generateSession({
      seed,
      rounds: 15 + Math.round(f(31) * 135),
      repeatRate: 0.15 + f(17) * 0.25,
      fileLines: [40, 400],
      testLogLines: [50, 600],
      userEvery: 6 + Math.round(f(13) * 6),
    }));
  }
  return out;
}
