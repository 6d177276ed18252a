/**
 * The Ogg encapsulation (RFC 3533): one logical bitstream of packets cut into pages. Each page
 * has a 27-byte header ("OggS", version 0, flags, granule position, serial number, sequence
 * number, CRC), a segment table of lacing values and the packet bytes. A packet is laced as
 * 255-byte segments ended by one shorter segment (0 when its length is a multiple of 255), and
 * may continue on the next page when a page runs out of its 255 segments.
 */

const FLAG_CONTINUED = 0x01;
const FLAG_BOS = 0x02;
const FLAG_EOS = 0x04;
const MAX_SEGMENTS = 255;

/** CRC-32 with the generator 0x04C11DB7, not reflected, initial value and final XOR zero (RFC 3533 §6). */
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let b = 0; b < 8; b++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

export function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < bytes.length; i++)
    crc = ((crc << 8) ^ (CRC_TABLE[((crc >>> 24) ^ (bytes[i] as number)) & 0xff] as number)) >>> 0;
  return crc;
}

export interface OggPacket {
  data: Uint8Array;
  /** The granule position once this packet has ended (the codec decides what it counts). */
  granule: bigint;
}

export interface OggStreamOptions {
  serial: number;
  /** Packets ended on a page before it is closed (fewer when its 255 segments run out first). */
  packetsPerPage: number;
}

/**
 * Pages for a stream whose packets come in groups that must each start on a fresh page (a
 * codec's headers, then its data). The first page is marked BOS, the last EOS; a page on which
 * no packet ends carries granule position -1.
 */
export function oggStream(groups: OggPacket[][], options: OggStreamOptions): Uint8Array {
  const pages: Uint8Array[] = [];
  let sequence = 0;
  let segments: number[] = [];
  let parts: Uint8Array[] = [];
  let granule = -1n;
  /** Whether the page being filled begins with the rest of a packet from the page before. */
  let continued = false;
  let packetsEnded = 0;

  const flush = (last: boolean) => {
    const flags = (continued ? FLAG_CONTINUED : 0) | (sequence === 0 ? FLAG_BOS : 0) | (last ? FLAG_EOS : 0);
    pages.push(page(options.serial, sequence++, flags, granule, segments, parts));
    segments = [];
    parts = [];
    granule = -1n;
    continued = false;
    packetsEnded = 0;
  };

  groups.forEach((packets, g) => {
    packets.forEach((packet, p) => {
      const lastPacket = g === groups.length - 1 && p === packets.length - 1;
      let offset = 0;
      for (;;) {
        if (segments.length === MAX_SEGMENTS) {
          // The page's segments are used up: the next page continues this packet, or starts it.
          flush(false);
          continued = offset > 0;
        }
        const take = Math.min(255, packet.data.length - offset);
        segments.push(take);
        parts.push(packet.data.subarray(offset, offset + take));
        offset += take;
        if (take < 255) break;
      }
      granule = packet.granule;
      packetsEnded++;
      const groupEnds = p === packets.length - 1;
      if (lastPacket) flush(true);
      else if (groupEnds || packetsEnded >= options.packetsPerPage) flush(false);
    });
  });
  return concat(pages);
}

function page(serial: number, sequence: number, flags: number, granule: bigint, segments: number[], parts: Uint8Array[]) {
  const bodyLength = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(27 + segments.length + bodyLength);
  const v = new DataView(out.buffer);
  out.set([0x4f, 0x67, 0x67, 0x53]); // "OggS"
  v.setUint8(4, 0); // stream structure version
  v.setUint8(5, flags);
  v.setBigInt64(6, granule, true);
  v.setUint32(14, serial >>> 0, true);
  v.setUint32(18, sequence, true);
  // bytes 22..25: the CRC, computed with this field zero and written last
  v.setUint8(26, segments.length);
  out.set(segments, 27);
  let at = 27 + segments.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  v.setUint32(22, oggCrc(out), true);
  return out;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
