/**
 * Test-only FLAC reader for the subset the encoder writes (fixed blocks, VERBATIM subframes,
 * 16-bit, independent channels). It checks both CRCs with bitwise implementations of its own.
 */
function crc(bytes: Uint8Array, width: 8 | 16, poly: number): number {
  const top = 1 << (width - 1);
  const mask = (1 << width) - 1;
  let c = 0;
  for (const b of bytes) {
    c ^= b << (width - 8);
    for (let k = 0; k < 8; k++) c = c & top ? ((c << 1) ^ poly) & mask : (c << 1) & mask;
  }
  return c;
}

export interface FlacInfo {
  minBlock: number;
  maxBlock: number;
  minFrame: number;
  maxFrame: number;
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  totalSamples: number;
  md5: Uint8Array;
  samples: Int16Array;
  frameNumbers: number[];
}

export function readFlac(b: Uint8Array): FlacInfo {
  if (new TextDecoder().decode(b.subarray(0, 4)) !== "fLaC") throw new Error("no fLaC marker");
  if (((b[4] as number) & 0x7f) !== 0) throw new Error("first block is not STREAMINFO");
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const si = 8;
  const packed = v.getBigUint64(si + 10);
  const info = {
    minBlock: v.getUint16(si),
    maxBlock: v.getUint16(si + 2),
    minFrame: (v.getUint16(si + 4) << 8) | (b[si + 6] as number),
    maxFrame: (v.getUint16(si + 7) << 8) | (b[si + 9] as number),
    sampleRate: Number(packed >> 44n),
    channels: Number((packed >> 41n) & 7n) + 1,
    bitsPerSample: Number((packed >> 36n) & 31n) + 1,
    totalSamples: Number(packed & 0xfffffffffn),
    md5: b.slice(si + 18, si + 34),
  };
  const samples = new Int16Array(info.totalSamples * info.channels);
  const frameNumbers: number[] = [];
  let at = 4 + 4 + (((b[5] as number) << 16) | ((b[6] as number) << 8) | (b[7] as number));
  let done = 0;
  while (at < b.length) {
    const start = at;
    if (b[at] !== 0xff || b[at + 1] !== 0xf8) throw new Error(`no frame sync at ${at}`);
    const bsCode = (b[at + 2] as number) >> 4;
    const srCode = (b[at + 2] as number) & 15;
    at += 4;
    // Extended UTF-8 frame number.
    const lead = b[at++] as number;
    let extra = 0;
    while (lead & (0x80 >> extra)) extra++;
    let n = extra ? lead & (0x7f >> extra) : lead;
    for (let k = 1; k < extra; k++) n = n * 64 + ((b[at++] as number) & 0x3f);
    frameNumbers.push(n);
    let size = bsCode === 12 ? 4096 : 0;
    if (bsCode === 6) size = (b[at++] as number) + 1;
    if (bsCode === 7) {
      size = v.getUint16(at) + 1;
      at += 2;
    }
    if (!size) throw new Error(`unexpected block size code ${bsCode}`);
    if (srCode === 12) at += 1;
    if (srCode === 13 || srCode === 14) at += 2;
    if (crc(b.subarray(start, at), 8, 0x07) !== b[at]) throw new Error(`frame ${n}: header CRC-8 mismatch`);
    at++;
    for (let c = 0; c < info.channels; c++) {
      if (b[at++] !== 0x02) throw new Error(`frame ${n}: subframe is not VERBATIM`);
      for (let i = 0; i < size; i++, at += 2) samples[(done + i) * info.channels + c] = v.getInt16(at);
    }
    if (crc(b.subarray(start, at), 16, 0x8005) !== v.getUint16(at)) throw new Error(`frame ${n}: CRC-16 mismatch`);
    at += 2;
    done += size;
  }
  if (done !== info.totalSamples) throw new Error(`frames hold ${done} samples, STREAMINFO says ${info.totalSamples}`);
  return { ...info, samples, frameNumbers };
}
