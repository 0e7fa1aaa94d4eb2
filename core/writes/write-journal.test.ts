import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { frameRecords, readFrames, WriteJournal } from './write-journal.ts';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-journal-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const rec = (s: string) => Buffer.from(s);

describe('the write journal', () => {
  it('appends records to a segment, seals it and reads them back in order', async () => {
    const dir = tempDir();
    const j = new WriteJournal(dir, { maxBytes: 1_000_000 });
    await j.append([rec('a'), rec('bb')]);
    await j.append([rec('ccc')]);
    expect(j.sealed()).toEqual([]);
    await j.seal();
    const [seq] = j.sealed();
    expect((await j.read(seq)).records.map(String)).toEqual(['a', 'bb', 'ccc']);
    expect(j.bytes).toBe(statSync(join(dir, readdirSync(dir)[0])).size);
    await j.remove(seq);
    expect(j.empty).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('finds the segments of an earlier process as sealed, and numbers new ones after them', async () => {
    const dir = tempDir();
    const first = new WriteJournal(dir, { maxBytes: 1_000_000 });
    await first.append([rec('x')]);
    // The process was killed: its descriptor closes, nothing else happens.
    await first.close();
    const second = new WriteJournal(dir, { maxBytes: 1_000_000 });
    expect(second.sealed()).toHaveLength(1);
    await second.append([rec('y')]);
    await second.seal();
    const segs = second.sealed();
    expect(segs).toHaveLength(2);
    expect((await second.read(segs[0])).records.map(String)).toEqual(['x']);
    expect((await second.read(segs[1])).records.map(String)).toEqual(['y']);
  });

  it('ignores a torn tail: a frame cut short, or one whose checksum does not match', async () => {
    const dir = tempDir();
    const j = new WriteJournal(dir, { maxBytes: 1_000_000 });
    await j.append([rec('kept-1'), rec('kept-2')]);
    await j.seal();
    const [seq] = j.sealed();
    const file = join(dir, readdirSync(dir)[0]);
    const next = frameRecords([rec('torn-record')]);
    appendFileSync(file, next.subarray(0, next.length - 3));
    const read = await new WriteJournal(dir, { maxBytes: 1_000_000 }).read(seq);
    expect(read.records.map(String)).toEqual(['kept-1', 'kept-2']);
    expect(read.tornBytes).toBe(next.length - 3);

    const corrupt = frameRecords([rec('one'), rec('two')]);
    corrupt[corrupt.length - 1] ^= 0xff;
    expect(readFrames(corrupt).records.map(String)).toEqual(['one']);
  });

  it('refuses an append past maxBytes with journal_full and keeps what it has', async () => {
    const j = new WriteJournal(tempDir(), { maxBytes: 100 });
    await j.append([Buffer.alloc(50)]);
    await expect(j.append([Buffer.alloc(50)])).rejects.toMatchObject({ code: 'journal_full', status: 503, headers: { 'Retry-After': '5' } });
    expect(j.bytes).toBe(58);
    expect(j.fits(30)).toBe(true);
    await j.close();
  });

  it('starts a new segment once one reaches segmentBytes', async () => {
    const j = new WriteJournal(tempDir(), { maxBytes: 1_000_000, segmentBytes: 64 });
    for (let i = 0; i < 4; i++) await j.append([Buffer.alloc(60)]);
    expect(j.sealed()).toHaveLength(4);
  });
});
