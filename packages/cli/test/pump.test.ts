// The chunking of `x-luks decrypt` and `x-disk decrypt` (src/pump.ts) on a stand-in volume: chunk
// boundaries, the last partial chunk, the ring of buffers (reads ahead, never into a buffer being written),
// failures, the writer thread.
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunkLength, pumpVolume, startWriter, type ChunkSink, type SectorReader } from '../src/pump.js';

/** The plaintext byte at payload offset `i`: a pattern that differs from one sector to the next. */
const byteAt = (i: number) => (i * 7 + Math.floor(i / 512) * 13) & 0xff;

/** A volume whose `read` fills `dst` with {@link byteAt} after a delay that varies, so reads finish out of order. */
function fakeVolume(payloadSize: number, sectorSize: number, fail?: { atSector: number }) {
  const log = { inFlight: 0, maxInFlight: 0, reads: [] as number[], buffers: new Set<number>() };
  const volume = {
    payloadSize,
    sectorSize,
    async read(dst: Uint8Array, firstSector: number) {
      expect(dst.length % sectorSize).toBe(0);
      log.inFlight++;
      log.maxInFlight = Math.max(log.maxInFlight, log.inFlight);
      log.reads.push(firstSector);
      log.buffers.add(dst.byteOffset); // the buffers are views of one allocation
      await new Promise((r) => setTimeout(r, (firstSector * 5) % 3));
      log.inFlight--;
      if (fail && firstSector === fail.atSector) throw new Error('read failed');
      const start = firstSector * sectorSize;
      for (let i = 0; i < dst.length; i++) dst[i] = byteAt(start + i);
    },
  } as unknown as SectorReader;
  return { volume, log };
}

/** A sink that collects what it is given (copies) and checks that it comes in order. */
function collect(async: boolean) {
  const out: { position: number; bytes: Uint8Array }[] = [];
  const sink: ChunkSink = {
    write(buf, position) {
      const end = out.length ? out[out.length - 1].position + out[out.length - 1].bytes.length : 0;
      expect(position).toBe(end);
      out.push({ position, bytes: Uint8Array.from(buf) });
      return async ? new Promise((r) => setTimeout(r, 1)) : undefined;
    },
  };
  const joined = () => Buffer.concat(out.map((o) => o.bytes));
  return { sink, out, joined };
}

const expected = (n: number) => Uint8Array.from({ length: n }, (_, i) => byteAt(i));

describe('chunkLength', () => {
  it('rounds down to whole sectors, at least one sector, at most the payload', () => {
    expect(chunkLength(1 << 30, 512, 4 << 20)).toBe(4 << 20);
    expect(chunkLength(1 << 30, 4096, 10_000)).toBe(8192);
    expect(chunkLength(1 << 30, 4096, 100)).toBe(4096);
    expect(chunkLength(3 * 512, 512, 4 << 20)).toBe(3 * 512);
    expect(chunkLength(0, 512, 4 << 20)).toBe(512);
  });
});

describe('pumpVolume', () => {
  for (const [payload, sector, chunk, depth] of [
    [10 * 512, 512, 3 * 512, 2], // 4 chunks, the last one a single sector
    [10 * 512, 512, 5 * 512, 2], // exactly 2 chunks
    [7 * 4096, 4096, 3 * 4096 + 100, 3], // a chunk size that is not whole sectors: rounded down
    [3 * 512, 512, 4 << 20, 4], // one chunk, shorter than the chunk size, more buffers than chunks
    [9 * 512, 512, 512, 1], // one buffer: no read ahead
  ] as const) {
    for (const async of [false, true]) {
      it(`${payload} bytes in ${sector}-byte sectors, chunks of ${chunk}, depth ${depth}, ${async ? 'async' : 'sync'} sink`, async () => {
        const { volume, log } = fakeVolume(payload, sector);
        const { sink, out, joined } = collect(async);
        const progress: number[] = [];
        const done = await pumpVolume(volume, sink, (d) => progress.push(d), { chunkBytes: chunk, depth });
        const size = chunkLength(payload, sector, chunk);
        const count = Math.ceil(payload / size);
        expect(done).toBe(payload);
        expect(Buffer.from(joined()).equals(expected(payload))).toBe(true);
        expect(out.map((o) => o.position)).toEqual(Array.from({ length: count }, (_, i) => i * size));
        expect(out[count - 1].bytes.length).toBe(payload - (count - 1) * size);
        expect(progress).toEqual(out.map((o) => o.position + o.bytes.length));
        expect(log.reads).toEqual(Array.from({ length: count }, (_, i) => (i * size) / sector));
        expect(log.maxInFlight).toBeLessThanOrEqual(Math.min(depth, count));
        if (count > 1 && depth > 1) expect(log.maxInFlight).toBeGreaterThan(1); // it does read ahead
        expect(log.buffers.size).toBe(Math.min(depth, count)); // allocated once, reused
      });
    }
  }

  it('never reads into a buffer that is being written, and writes ahead in order', async () => {
    const { volume } = fakeVolume(64 * 512, 512);
    const writing = new Set<Uint8Array>();
    let maxWriting = 0;
    const original = volume.read.bind(volume);
    (volume as { read: SectorReader['read'] }).read = (dst, first) => {
      for (const w of writing) {
        expect(dst.byteOffset + dst.length <= w.byteOffset || w.byteOffset + w.length <= dst.byteOffset).toBe(true);
      }
      return original(dst, first);
    };
    const { sink: inOrder, joined } = collect(false);
    const sink: ChunkSink = {
      async write(buf, position) {
        inOrder.write(buf, position);
        writing.add(buf);
        maxWriting = Math.max(maxWriting, writing.size);
        await new Promise((r) => setTimeout(r, 2));
        writing.delete(buf);
      },
    };
    await pumpVolume(volume, sink, () => {}, { chunkBytes: 4 * 512, depth: 3 });
    expect(Buffer.from(joined()).equals(expected(64 * 512))).toBe(true);
    expect(maxWriting).toBeGreaterThan(1); // the next chunk is handed over before the last one is written
    expect(maxWriting).toBeLessThanOrEqual(3);
  });

  it('a failed read rejects after the reads in flight settle, with every buffer zeroed', async () => {
    const { volume, log } = fakeVolume(20 * 512, 512, { atSector: 8 });
    const seen: Uint8Array[] = [];
    const sink: ChunkSink = { write: (buf) => void seen.push(buf) };
    await expect(pumpVolume(volume, sink, () => {}, { chunkBytes: 4 * 512, depth: 3 })).rejects.toThrow('read failed');
    expect(log.inFlight).toBe(0);
    for (const b of seen) expect(b.every((x) => x === 0)).toBe(true);
  });

  it('a failed write rejects and stops reading', async () => {
    const { volume, log } = fakeVolume(40 * 512, 512);
    let writes = 0;
    const sink: ChunkSink = {
      write() {
        if (++writes === 2) throw new Error('disk full');
      },
    };
    await expect(pumpVolume(volume, sink, () => {}, { chunkBytes: 4 * 512, depth: 2 })).rejects.toThrow('disk full');
    expect(log.inFlight).toBe(0);
    expect(log.reads.length).toBeLessThan(10);
  });
});

describe('startWriter', () => {
  it('writes each chunk at its position on its own thread, in pieces, and reports failures', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'x-luks-pump-'));
    const writer = startWriter(1000); // pieces that do not divide the chunks
    try {
      const path = join(dir, 'out');
      const fd = openSync(path, 'w');
      const data = new Uint8Array(new SharedArrayBuffer(5 * 4096 + 512));
      data.set(expected(data.length));
      const sink = writer.sink(fd);
      // out of order, as a block device may be written; each call is one chunk
      await sink.write(data.subarray(4096 * 3), 4096 * 3);
      await sink.write(data.subarray(0, 4096 * 3), 0);
      closeSync(fd);
      expect(Buffer.from(readFileSync(path)).equals(data)).toBe(true);
      await expect(sink.write(new Uint8Array(16), 0)).rejects.toThrow(/SharedArrayBuffer/);
      const bad = writer.sink(fd); // closed: EBADF from the thread
      await expect(bad.write(data.subarray(0, 512), 0)).rejects.toMatchObject({ code: 'EBADF' });
      await expect(bad.write(data.subarray(0, 512), 0)).rejects.toMatchObject({ code: 'EBADF' }); // stays failed
    } finally {
      await writer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('pumps a volume through the writer thread', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'x-luks-pump-'));
    const writer = startWriter(4096);
    try {
      const path = join(dir, 'out');
      const fd = openSync(path, 'w');
      const payload = 100 * 512;
      const { volume } = fakeVolume(payload, 512);
      const done = await pumpVolume(volume, writer.sink(fd), () => {}, { chunkBytes: 7 * 512, depth: 3, shared: true });
      closeSync(fd);
      expect(done).toBe(payload);
      expect(Buffer.from(readFileSync(path)).equals(expected(payload))).toBe(true);
    } finally {
      await writer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
