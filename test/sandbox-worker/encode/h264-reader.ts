/**
 * A test-only H.264 reader, written independently of the encoder: it parses the SPS, PPS and slice
 * headers and reads I_PCM macroblocks back into YUV planes, so tests can check what a decoder sees.
 */
export class BitReader {
  private bit = 0;
  constructor(private readonly data: Uint8Array) {}

  u(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const byte = this.data[this.bit >> 3];
      if (byte === undefined) throw new Error("read past the end of the RBSP");
      v = v * 2 + ((byte >> (7 - (this.bit & 7))) & 1);
      this.bit++;
    }
    return v;
  }

  flag(): boolean {
    return this.u(1) === 1;
  }

  ue(): number {
    let zeros = 0;
    while (this.u(1) === 0) zeros++;
    return 2 ** zeros - 1 + this.u(zeros);
  }

  se(): number {
    const k = this.ue();
    return k % 2 ? (k + 1) / 2 : -k / 2;
  }

  get aligned(): boolean {
    return (this.bit & 7) === 0;
  }

  get bitsLeft(): number {
    return this.data.length * 8 - this.bit;
  }

  byte(): number {
    if (!this.aligned) throw new Error("unaligned byte read");
    return this.u(8);
  }

  /** True when only rbsp_trailing_bits remain. */
  atTrailingBits(): boolean {
    const rest = this.bitsLeft;
    if (rest === 0 || rest > 8) return rest === 0;
    const last = this.data[this.data.length - 1] as number;
    return (last & ((1 << rest) - 1)) === 1 << (rest - 1);
  }
}

/** Splits an AVCC sample (4-byte big-endian lengths) into NAL units. */
export function avccNalUnits(sample: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  const view = new DataView(sample.buffer, sample.byteOffset, sample.byteLength);
  for (let at = 0; at < sample.length; ) {
    const len = view.getUint32(at);
    out.push(sample.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return out;
}

export interface NalHeader {
  refIdc: number;
  type: number;
}

export function nalHeader(nal: Uint8Array): NalHeader {
  const b = nal[0] as number;
  if (b & 0x80) throw new Error("forbidden_zero_bit set");
  return { refIdc: (b >> 5) & 3, type: b & 31 };
}

/** The payload without its header byte and with emulation-prevention bytes removed. */
export function rbsp(nal: Uint8Array): Uint8Array {
  const out: number[] = [];
  let zeros = 0;
  for (let i = 1; i < nal.length; i++) {
    const b = nal[i] as number;
    if (zeros >= 2 && b === 3) {
      zeros = 0;
      continue;
    }
    if (zeros >= 2 && b < 3) throw new Error(`forbidden sequence 00 00 0${b} at ${i}`);
    out.push(b);
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return Uint8Array.from(out);
}

export interface Sps {
  profileIdc: number;
  constraintFlags: number;
  levelIdc: number;
  log2MaxFrameNum: number;
  pocType: number;
  maxNumRefFrames: number;
  mbW: number;
  mbH: number;
  width: number;
  height: number;
}

export function parseSps(nal: Uint8Array): Sps {
  if (nalHeader(nal).type !== 7) throw new Error("not an SPS");
  const r = new BitReader(rbsp(nal));
  const profileIdc = r.u(8);
  const constraintFlags = r.u(8);
  const levelIdc = r.u(8);
  r.ue(); // seq_parameter_set_id
  if (profileIdc !== 66) throw new Error(`reader handles Baseline only, got profile ${profileIdc}`);
  const log2MaxFrameNum = r.ue() + 4;
  const pocType = r.ue();
  if (pocType === 0) r.ue();
  if (pocType === 1) throw new Error("poc type 1 not handled");
  const maxNumRefFrames = r.ue();
  r.flag(); // gaps_in_frame_num_value_allowed_flag
  const mbW = r.ue() + 1;
  const mbH = r.ue() + 1;
  if (!r.flag()) throw new Error("interlaced streams not handled");
  r.flag(); // direct_8x8_inference_flag
  let crop = [0, 0, 0, 0];
  if (r.flag()) crop = [r.ue(), r.ue(), r.ue(), r.ue()];
  const [left, right, top, bottom] = crop as [number, number, number, number];
  return {
    profileIdc,
    constraintFlags,
    levelIdc,
    log2MaxFrameNum,
    pocType,
    maxNumRefFrames,
    mbW,
    mbH,
    width: mbW * 16 - 2 * (left + right),
    height: mbH * 16 - 2 * (top + bottom),
  };
}

export interface Pps {
  cabac: boolean;
  deblockingControl: boolean;
}

export function parsePps(nal: Uint8Array): Pps {
  if (nalHeader(nal).type !== 8) throw new Error("not a PPS");
  const r = new BitReader(rbsp(nal));
  r.ue();
  r.ue();
  const cabac = r.flag();
  r.flag();
  if (r.ue() !== 0) throw new Error("slice groups not handled");
  r.ue();
  r.ue();
  r.flag();
  r.u(2);
  r.se();
  r.se();
  r.se();
  const deblockingControl = r.flag();
  return { cabac, deblockingControl };
}

export interface Slice {
  idr: boolean;
  sliceType: number;
  frameNum: number;
  idrPicId?: number;
  reader: BitReader;
}

function sliceHeader(nal: Uint8Array, sps: Sps, pps: Pps): Slice {
  const { refIdc, type } = nalHeader(nal);
  if (type !== 1 && type !== 5) throw new Error(`not a slice: NAL type ${type}`);
  const idr = type === 5;
  const r = new BitReader(rbsp(nal));
  if (r.ue() !== 0) throw new Error("expected one slice per picture");
  const sliceType = r.ue() % 5;
  r.ue(); // pic_parameter_set_id
  const frameNum = r.u(sps.log2MaxFrameNum);
  const idrPicId = idr ? r.ue() : undefined;
  if (sps.pocType === 0) r.ue();
  if (sliceType === 0) {
    if (r.flag()) r.ue(); // num_ref_idx_active_override
    if (r.flag()) throw new Error("ref_pic_list_modification not handled");
  }
  if (refIdc !== 0) {
    if (idr) r.u(2);
    else if (r.flag()) throw new Error("adaptive ref pic marking not handled");
  }
  r.se(); // slice_qp_delta
  if (pps.deblockingControl && r.ue() !== 1) {
    r.se();
    r.se();
  }
  return { idr, sliceType, frameNum, idrPicId, reader: r };
}

export interface Picture {
  /** Planes as coded (padded to whole macroblocks). */
  stride: number;
  y: Uint8Array;
  u: Uint8Array;
  v: Uint8Array;
  frameNum: number;
  idrPicId?: number;
}

/** Reads an I slice whose macroblocks are all I_PCM. */
export function readPcmPicture(nal: Uint8Array, sps: Sps, pps: Pps): Picture {
  if (pps.cabac) throw new Error("CABAC not handled");
  const s = sliceHeader(nal, sps, pps);
  if (s.sliceType !== 2) throw new Error(`expected an I slice, got type ${s.sliceType}`);
  const r = s.reader;
  const stride = sps.mbW * 16;
  const y = new Uint8Array(stride * sps.mbH * 16);
  const u = new Uint8Array((stride / 2) * sps.mbH * 8);
  const v = new Uint8Array(u.length);
  for (let my = 0; my < sps.mbH; my++)
    for (let mx = 0; mx < sps.mbW; mx++) {
      const mbType = r.ue();
      if (mbType !== 25) throw new Error(`macroblock ${mx},${my}: mb_type ${mbType}, not I_PCM`);
      while (!r.aligned) if (r.u(1) !== 0) throw new Error("pcm_alignment_zero_bit is 1");
      for (let i = 0; i < 256; i++) y[(my * 16 + (i >> 4)) * stride + mx * 16 + (i & 15)] = r.byte();
      for (const plane of [u, v])
        for (let i = 0; i < 64; i++) plane[(my * 8 + (i >> 3)) * (stride / 2) + mx * 8 + (i & 7)] = r.byte();
    }
  if (!r.atTrailingBits()) throw new Error("data after the last macroblock");
  return { stride, y, u, v, frameNum: s.frameNum, idrPicId: s.idrPicId };
}

/** Reads a P slice that skips every macroblock, returning its frame_num and skip run. */
export function readSkipSlice(nal: Uint8Array, sps: Sps, pps: Pps): { frameNum: number; skipRun: number } {
  const s = sliceHeader(nal, sps, pps);
  if (s.sliceType !== 0) throw new Error(`expected a P slice, got type ${s.sliceType}`);
  const skipRun = s.reader.ue();
  if (!s.reader.atTrailingBits()) throw new Error("data after mb_skip_run");
  return { frameNum: s.frameNum, skipRun };
}
