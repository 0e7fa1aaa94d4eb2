/**
 * A writer's local journal: where rows go, fsynced, while Postgres cannot take them, until they are replayed.
 *
 * Layout: one directory per writer (`<SVC_DATA_DIR>/journal/<writer>/`) of append-only segment files named by a
 * growing sequence number (`00000000000000000001.log`). A segment is a run of records:
 *
 *     u32 LE  payload length
 *     u32 LE  CRC-32 of the payload
 *     bytes   payload (the writer's own encoding of one row)
 *
 * A process killed during an append leaves a torn last record: its length runs past the end of the file or its
 * checksum does not match. Reading stops there and ignores the rest; that record was never acknowledged (the append
 * resolves only after fdatasync), so nothing acknowledged is lost.
 *
 * Appends go to the open segment; seal() closes it (the next append opens a new one) so that the replayer reads only
 * segments nobody writes to any more. Segments found at open are all sealed. A segment is deleted once every row
 * in it is committed to Postgres. The journal's total size is bounded: an append that would pass `maxBytes` fails
 * with journal_full.
 */
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { svcError } from '../errors.ts';

const HEADER = 8;
const NAME = /^(\d{20})\.log$/;

export interface JournalOptions {
  /** Most bytes the journal may hold on disk. */
  maxBytes: number;
  /** A segment is sealed once it reaches this size (one batch is never split, so it may pass it). */
  segmentBytes?: number;
}

export interface SegmentRead {
  seq: number;
  records: Buffer[];
  /** Bytes past the last whole record (a torn tail); 0 for a clean segment. */
  tornBytes: number;
}

/** Encodes records as one buffer of length-prefixed, checksummed frames. */
export function frameRecords(records: readonly Buffer[]): Buffer {
  const out = Buffer.allocUnsafe(records.reduce((n, r) => n + HEADER + r.length, 0));
  let at = 0;
  for (const r of records) {
    out.writeUInt32LE(r.length, at);
    out.writeUInt32LE(crc32(r), at + 4);
    r.copy(out, at + HEADER);
    at += HEADER + r.length;
  }
  return out;
}

/** The whole records of a segment's bytes, stopping at the first torn or corrupt one. */
export function readFrames(bytes: Buffer): { records: Buffer[]; tornBytes: number } {
  const records: Buffer[] = [];
  let at = 0;
  while (at + HEADER <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    const end = at + HEADER + length;
    if (end > bytes.length) break;
    const payload = bytes.subarray(at + HEADER, end);
    if (crc32(payload) !== bytes.readUInt32LE(at + 4)) break;
    records.push(payload);
    at = end;
  }
  return { records, tornBytes: bytes.length - at };
}

const segmentName = (seq: number) => `${String(seq).padStart(20, '0')}.log`;

export class WriteJournal {
  readonly dir: string;
  #maxBytes: number;
  #segmentBytes: number;
  /** Size of every segment on disk, by sequence number (the open one included). */
  #sizes = new Map<number, number>();
  #bytes = 0;
  #nextSeq: number;
  #active: { seq: number; fh: FileHandle } | undefined;
  /** Appends and seals run one after the other. */
  #chain: Promise<unknown> = Promise.resolve();

  constructor(dir: string, options: JournalOptions) {
    this.dir = dir;
    this.#maxBytes = options.maxBytes;
    this.#segmentBytes = options.segmentBytes ?? 8 * 1024 * 1024;
    mkdirSync(dir, { recursive: true });
    let last = 0;
    for (const f of readdirSync(dir)) {
      const m = NAME.exec(f);
      if (!m) continue;
      const seq = Number(m[1]);
      const size = statSync(join(dir, f)).size;
      this.#sizes.set(seq, size);
      this.#bytes += size;
      last = Math.max(last, seq);
    }
    this.#nextSeq = last + 1;
  }

  /** Bytes on disk. */
  get bytes(): number {
    return this.#bytes;
  }

  get maxBytes(): number {
    return this.#maxBytes;
  }

  /** True when no segment is on disk. */
  get empty(): boolean {
    return this.#sizes.size === 0;
  }

  /** Whether `bytes` more (records before framing) would fit. */
  fits(bytes: number): boolean {
    return this.#bytes + bytes <= this.#maxBytes;
  }

  /** Appends the records and fsyncs them; resolves only once they are on disk. Throws journal_full past maxBytes. */
  append(records: readonly Buffer[]): Promise<void> {
    const run = this.#chain.then(() => this.#append(records));
    this.#chain = run.catch(() => {});
    return run;
  }

  /** Closes the open segment, so that every segment on disk can be replayed. */
  seal(): Promise<void> {
    const run = this.#chain.then(() => this.#seal());
    this.#chain = run.catch(() => {});
    return run;
  }

  /** The sealed segments' sequence numbers, oldest first. */
  sealed(): number[] {
    return [...this.#sizes.keys()].filter((s) => s !== this.#active?.seq).sort((a, b) => a - b);
  }

  async read(seq: number): Promise<SegmentRead> {
    const { records, tornBytes } = readFrames(await readFile(join(this.dir, segmentName(seq))));
    return { seq, records, tornBytes };
  }

  /** Deletes a sealed segment whose rows are all committed. */
  async remove(seq: number): Promise<void> {
    if (seq === this.#active?.seq) throw new Error('the open journal segment cannot be removed');
    await unlink(join(this.dir, segmentName(seq))).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    this.#bytes -= this.#sizes.get(seq) ?? 0;
    this.#sizes.delete(seq);
  }

  async close(): Promise<void> {
    await this.seal();
  }

  async #append(records: readonly Buffer[]): Promise<void> {
    const frame = frameRecords(records);
    if (!this.fits(frame.length)) {
      throw svcError('journal_full', undefined, { journal_bytes: this.#bytes, max_bytes: this.#maxBytes }, { 'Retry-After': '5' });
    }
    const active = this.#active ?? (await this.#openSegment());
    const before = this.#sizes.get(active.seq) ?? 0;
    try {
      await active.fh.write(frame, 0, frame.length, before);
      await active.fh.datasync();
    } catch (err) {
      // A half-written frame is a torn tail that readers skip; never append after it.
      await this.#seal();
      throw err;
    }
    this.#sizes.set(active.seq, before + frame.length);
    this.#bytes += frame.length;
    if (before + frame.length >= this.#segmentBytes) await this.#seal();
  }

  async #openSegment(): Promise<{ seq: number; fh: FileHandle }> {
    let seq = this.#nextSeq++;
    let fh: FileHandle | undefined;
    while (!fh) {
      try {
        fh = await open(join(this.dir, segmentName(seq)), 'wx');
      } catch (err) {
        // Another process appends to this directory (two nodes on one SVC_DATA_DIR, which they must not share):
        // never write into its segment.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        seq = this.#nextSeq++;
      }
    }
    // The new name must survive a crash too: fsync the directory once per segment.
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
    this.#sizes.set(seq, 0);
    this.#active = { seq, fh };
    return this.#active;
  }

  async #seal(): Promise<void> {
    const active = this.#active;
    if (!active) return;
    this.#active = undefined;
    await active.fh.close();
    if ((this.#sizes.get(active.seq) ?? 0) === 0) await this.remove(active.seq);
  }
}
