/**
 * A test-only Ogg reader written from RFC 3533, independent of the writer: it checks every page
 * (capture pattern, version, one serial, consecutive sequence numbers, BOS first and EOS last,
 * the CRC computed bit by bit) and reassembles packets from the lacing values, across pages.
 */

export interface OggPage {
  flags: number;
  granule: bigint;
  serial: number;
  sequence: number;
  /** Lacing values of the segment table. */
  segments: number[];
  /** Packets that end on this page. */
  ended: number;
}

export interface ReadPacket {
  data: Uint8Array;
  /** The page the packet ends on. */
  page: number;
  /** Whether it begins at the start of a page (Ogg Opus requires this of its headers and first audio packet). */
  startsPage: boolean;
}

/** CRC over the page with its CRC field zeroed, shifted one bit at a time (RFC 3533 §6: generator 0x04C11DB7). */
function crcOf(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 24;
    for (let b = 0; b < 8; b++) crc = crc & 0x80000000 ? ((crc << 1) ^ 0x04c11db7) >>> 0 : (crc << 1) >>> 0;
  }
  return crc >>> 0;
}

export function readOgg(file: Uint8Array): { pages: OggPage[]; packets: ReadPacket[] } {
  const pages: OggPage[] = [];
  const packets: ReadPacket[] = [];
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  let partial: Uint8Array[] = [];
  let partialStartsPage = false;
  let off = 0;
  while (off < file.length) {
    if (String.fromCharCode(...file.subarray(off, off + 4)) !== "OggS") throw new Error(`no capture pattern at ${off}`);
    if (file[off + 4] !== 0) throw new Error("version is not 0");
    const flags = file[off + 5] as number;
    const granule = view.getBigInt64(off + 6, true);
    const serial = view.getUint32(off + 14, true);
    const sequence = view.getUint32(off + 18, true);
    const crc = view.getUint32(off + 22, true);
    const count = file[off + 26] as number;
    const segments = [...file.subarray(off + 27, off + 27 + count)];
    const bodyStart = off + 27 + count;
    const bodyLength = segments.reduce((a, b) => a + b, 0);
    const end = bodyStart + bodyLength;
    if (end > file.length) throw new Error("truncated page");
    const copy = file.slice(off, end);
    copy.fill(0, 22, 26);
    if (crcOf(copy) !== crc) throw new Error(`page ${sequence}: CRC mismatch`);
    if (((flags & 1) !== 0) !== partial.length > 0)
      throw new Error(`page ${sequence}: continuation flag disagrees with the lacing`);
    let at = bodyStart;
    let ended = 0;
    for (const [i, lace] of segments.entries()) {
      if (partial.length === 0) partialStartsPage = i === 0;
      partial.push(file.subarray(at, at + lace));
      at += lace;
      if (lace < 255) {
        const data = new Uint8Array(partial.reduce((n, p) => n + p.length, 0));
        let o = 0;
        for (const p of partial) {
          data.set(p, o);
          o += p.length;
        }
        packets.push({ data, page: pages.length, startsPage: partialStartsPage });
        partial = [];
        partialStartsPage = false;
        ended++;
      }
    }
    pages.push({ flags, granule, serial, sequence, segments, ended });
    off = end;
  }
  if (partial.length > 0) throw new Error("the last packet never ends");
  pages.forEach((p, i) => {
    if (p.serial !== pages[0]?.serial) throw new Error("more than one serial number");
    if (p.sequence !== i) throw new Error(`page ${i} has sequence ${p.sequence}`);
    if (((p.flags & 2) !== 0) !== (i === 0)) throw new Error("BOS must be on the first page only");
    if (((p.flags & 4) !== 0) !== (i === pages.length - 1)) throw new Error("EOS must be on the last page only");
    if (p.ended === 0 && p.granule !== -1n) throw new Error(`page ${i} ends no packet but has granule ${p.granule}`);
  });
  return { pages, packets };
}
