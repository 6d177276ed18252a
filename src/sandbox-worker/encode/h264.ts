/**
 * A minimal H.264 encoder that needs no codec library: Constrained Baseline, keyframes (IDR) whose
 * macroblocks are all I_PCM (raw samples, so the picture is exact up to the YUV conversion), and
 * P frames whose macroblocks are all P_Skip (a copy of the previous frame in a few bytes). It suits
 * synthetic clips that change only at keyframes; it is not a compressor.
 */
import { BitWriter } from "./bits";
import { frameRate } from "./timing";
import { rgbToYuv420 } from "./yuv";

export interface VideoFrameSource {
  /** Both must be even: 4:2:0 cropping works in steps of two pixels. */
  width: number;
  height: number;
  fps: number;
  frameCount: number;
  /** An IDR every this many frames (frame 0 always is one). */
  keyframeInterval: number;
  /** Overrides keyframeInterval when given (frame 0 is an IDR regardless). */
  isKeyframe?(index: number): boolean;
  /** RGB or RGBA, row-major; called only for keyframes. */
  frame(index: number): Uint8Array;
  /**
   * Parameter set ids (0 by default), and whether each IDR sample also carries the SPS and PPS
   * in-band: for frames that join another stream, whose own parameter sets keep their ids.
   */
  parameterSets?: { spsId: number; ppsId: number; inBand: boolean };
}

export interface H264Sample {
  /** AVCC: NAL units, each prefixed with its 4-byte big-endian length. */
  data: Uint8Array;
  isKeyframe: boolean;
}

export interface H264Stream {
  /** NAL units with their one-byte header and emulation prevention, no start code or length. */
  sps: Uint8Array;
  pps: Uint8Array;
  samples: H264Sample[];
}

const NAL_SLICE = 1;
const NAL_IDR = 5;
const NAL_SPS = 7;
const NAL_PPS = 8;
const LOG2_MAX_FRAME_NUM = 16;
const MB_TYPE_I_PCM = 25;
const SLICE_P = 5; // 0 + 5: every slice of the picture is P
const SLICE_I = 7; // 2 + 5: every slice of the picture is I

/** [level_idc, MaxMBPS, MaxFS] from Table A-1. */
const LEVELS: [number, number, number][] = [
  [10, 1485, 99],
  [11, 3000, 396],
  [12, 6000, 396],
  [13, 11880, 396],
  [20, 11880, 396],
  [21, 19800, 792],
  [22, 20250, 1620],
  [30, 40500, 1620],
  [31, 108000, 3600],
  [32, 216000, 5120],
  [40, 245760, 8192],
  [42, 522240, 8704],
  [50, 589824, 22080],
  [51, 983040, 36864],
  [52, 2073600, 36864],
  [60, 4177920, 139264],
  [61, 8355840, 139264],
  [62, 16711680, 139264],
];

/**
 * The lowest level whose frame size and macroblock rate fit. The bit-rate limit is left out on
 * purpose: I_PCM keyframes exceed it in bursts, decoders do not enforce it, and declaring a higher
 * level only to cover it would make some hardware decoders refuse the stream.
 */
function levelFor(mbW: number, mbH: number, fps: number): number {
  const fs = mbW * mbH;
  for (const [level, maxMbps, maxFs] of LEVELS) {
    const side = Math.sqrt(8 * maxFs);
    if (fs <= maxFs && mbW <= side && mbH <= side && fs * fps <= maxMbps) return level;
  }
  return 62;
}

/** NAL unit bytes: the header, then the RBSP with emulation prevention (00 00 0x → 00 00 03 0x). */
export function nalUnit(refIdc: number, type: number, rbsp: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + rbsp.length + (rbsp.length >> 1) + 1);
  out[0] = (refIdc << 5) | type;
  let o = 1;
  let zeros = 0;
  for (let i = 0; i < rbsp.length; i++) {
    const b = rbsp[i] as number;
    if (zeros >= 2 && b <= 3) {
      out[o++] = 3;
      zeros = 0;
    }
    out[o++] = b;
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return out.slice(0, o);
}

function avcc(nal: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + nal.length);
  new DataView(out.buffer).setUint32(0, nal.length);
  out.set(nal, 4);
  return out;
}

interface Geometry {
  width: number;
  height: number;
  mbW: number;
  mbH: number;
  spsId: number;
  ppsId: number;
}

function spsRbsp(g: Geometry, fps: number): Uint8Array {
  const w = new BitWriter();
  w.bits(66, 8); // profile_idc: Baseline
  w.bits(0b11000000, 8); // constraint_set0 + set1 = Constrained Baseline
  w.bits(levelFor(g.mbW, g.mbH, fps), 8);
  w.ue(g.spsId); // seq_parameter_set_id
  w.ue(LOG2_MAX_FRAME_NUM - 4);
  w.ue(2); // pic_order_cnt_type 2: output order is decode order, nothing to signal per slice
  w.ue(1); // max_num_ref_frames
  w.flag(false); // gaps_in_frame_num_value_allowed_flag
  w.ue(g.mbW - 1);
  w.ue(g.mbH - 1);
  w.flag(true); // frame_mbs_only_flag
  w.flag(true); // direct_8x8_inference_flag
  const cropRight = g.mbW * 16 - g.width;
  const cropBottom = g.mbH * 16 - g.height;
  w.flag(cropRight > 0 || cropBottom > 0);
  if (cropRight > 0 || cropBottom > 0) {
    // Offsets count chroma samples (2 luma pixels) in 4:2:0.
    w.ue(0);
    w.ue(cropRight / 2);
    w.ue(0);
    w.ue(cropBottom / 2);
  }
  w.flag(true); // vui_parameters_present_flag
  w.flag(false); // aspect_ratio_info_present_flag
  w.flag(false); // overscan_info_present_flag
  w.flag(true); // video_signal_type_present_flag: say limited-range BT.601, which is what we wrote
  w.bits(5, 3); // video_format: unspecified
  w.flag(false); // video_full_range_flag
  w.flag(true); // colour_description_present_flag
  w.bits(6, 8); // colour_primaries: SMPTE 170M
  w.bits(6, 8); // transfer_characteristics
  w.bits(6, 8); // matrix_coefficients
  w.flag(false); // chroma_loc_info_present_flag
  w.flag(true); // timing_info_present_flag: one frame is two ticks (fields)
  const rate = frameRate(fps);
  w.bits(rate.den, 32); // num_units_in_tick
  w.bits(rate.num * 2, 32); // time_scale
  w.flag(true); // fixed_frame_rate_flag
  w.flag(false); // nal_hrd_parameters_present_flag
  w.flag(false); // vcl_hrd_parameters_present_flag
  w.flag(false); // pic_struct_present_flag
  w.flag(true); // bitstream_restriction_flag: lets decoders output each frame at once
  w.flag(true); // motion_vectors_over_pic_boundaries_flag
  w.ue(0); // max_bytes_per_pic_denom
  w.ue(0); // max_bits_per_mb_denom
  w.ue(16); // log2_max_mv_length_horizontal
  w.ue(16); // log2_max_mv_length_vertical
  w.ue(0); // max_num_reorder_frames
  w.ue(1); // max_dec_frame_buffering
  w.trailing();
  return w.finish();
}

function ppsRbsp(g: Geometry): Uint8Array {
  const w = new BitWriter();
  w.ue(g.ppsId); // pic_parameter_set_id
  w.ue(g.spsId); // seq_parameter_set_id
  w.flag(false); // entropy_coding_mode_flag: CAVLC
  w.flag(false); // bottom_field_pic_order_in_frame_present_flag
  w.ue(0); // num_slice_groups_minus1
  w.ue(0); // num_ref_idx_l0_default_active_minus1
  w.ue(0); // num_ref_idx_l1_default_active_minus1
  w.flag(false); // weighted_pred_flag
  w.bits(0, 2); // weighted_bipred_idc
  w.se(0); // pic_init_qp_minus26
  w.se(0); // pic_init_qs_minus26
  w.se(0); // chroma_qp_index_offset
  w.flag(true); // deblocking_filter_control_present_flag: so slices can turn it off
  w.flag(false); // constrained_intra_pred_flag
  w.flag(false); // redundant_pic_cnt_present_flag
  w.trailing();
  return w.finish();
}

function sliceHeader(w: BitWriter, g: Geometry, idr: boolean, frameNum: number, idrPicId: number): void {
  w.ue(0); // first_mb_in_slice
  w.ue(idr ? SLICE_I : SLICE_P);
  w.ue(g.ppsId); // pic_parameter_set_id
  w.bits(frameNum, LOG2_MAX_FRAME_NUM);
  if (idr) w.ue(idrPicId);
  if (!idr) {
    w.flag(false); // num_ref_idx_active_override_flag
    w.flag(false); // ref_pic_list_modification_flag_l0
  }
  // dec_ref_pic_marking (every picture is a reference, see encodeH264)
  if (idr) {
    w.flag(false); // no_output_of_prior_pics_flag
    w.flag(false); // long_term_reference_flag
  } else {
    w.flag(false); // adaptive_ref_pic_marking_mode_flag: sliding window
  }
  w.se(0); // slice_qp_delta
  w.ue(1); // disable_deblocking_filter_idc: nothing to smooth in raw or copied pictures
}

function idrSlice(rgb: Uint8Array, g: Geometry, idrPicId: number): Uint8Array {
  const yuv = rgbToYuv420(rgb, g.width, g.height, g.mbW * 16, g.mbH * 16);
  const w = new BitWriter(g.mbW * g.mbH * 388 + 64);
  sliceHeader(w, g, true, 0, idrPicId);
  const mb = new Uint8Array(384);
  const stride = yuv.width;
  const cStride = stride >> 1;
  for (let my = 0; my < g.mbH; my++) {
    for (let mx = 0; mx < g.mbW; mx++) {
      w.ue(MB_TYPE_I_PCM);
      w.alignZero(); // pcm_alignment_zero_bit
      // pcm_sample_luma[256] in raster order, then all Cb, then all Cr (8×8 each in 4:2:0).
      for (let r = 0; r < 16; r++) {
        const o = (my * 16 + r) * stride + mx * 16;
        mb.set(yuv.y.subarray(o, o + 16), r * 16);
      }
      for (let r = 0; r < 8; r++) {
        const o = (my * 8 + r) * cStride + mx * 8;
        mb.set(yuv.u.subarray(o, o + 8), 256 + r * 8);
        mb.set(yuv.v.subarray(o, o + 8), 320 + r * 8);
      }
      w.bytes(mb);
    }
  }
  w.trailing();
  return w.finish();
}

function skipSlice(g: Geometry, frameNum: number): Uint8Array {
  const w = new BitWriter();
  sliceHeader(w, g, false, frameNum, 0);
  w.ue(g.mbW * g.mbH); // mb_skip_run covering the whole picture
  w.trailing();
  return w.finish();
}

export function encodeH264(src: VideoFrameSource): H264Stream {
  const { width, height, fps, frameCount } = src;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 2 || height < 2 || width % 2 || height % 2)
    throw new RangeError(`width and height must be even integers ≥ 2, got ${width}×${height}`);
  if (!Number.isInteger(frameCount) || frameCount < 1) throw new RangeError(`frameCount must be ≥ 1, got ${frameCount}`);
  const interval = Math.max(1, Math.floor(src.keyframeInterval));
  const ids = src.parameterSets ?? { spsId: 0, ppsId: 0, inBand: false };
  if (!(ids.spsId >= 0 && ids.spsId <= 31 && ids.ppsId >= 0 && ids.ppsId <= 255))
    throw new RangeError(`parameter set ids out of range: SPS ${ids.spsId}, PPS ${ids.ppsId}`);
  const g: Geometry = { width, height, mbW: Math.ceil(width / 16), mbH: Math.ceil(height / 16), ...ids };
  const sps = nalUnit(3, NAL_SPS, spsRbsp(g, fps));
  const pps = nalUnit(3, NAL_PPS, ppsRbsp(g));
  const isKey = (i: number) => i === 0 || (src.isKeyframe ? src.isKeyframe(i) : i % interval === 0);

  // Every picture is a reference (nal_ref_idc ≠ 0) with frame_num counting up from the last IDR:
  // picture order type 2 forbids two non-reference pictures in a row, and with one reference frame
  // each P_Skip picture simply copies the one before it.
  const samples: H264Sample[] = [];
  let lastIdr = 0;
  let idrCount = 0;
  for (let i = 0; i < frameCount; i++) {
    if (isKey(i)) {
      lastIdr = i;
      const nal = avcc(nalUnit(3, NAL_IDR, idrSlice(src.frame(i), g, idrCount++ % 65536)));
      const data = ids.inBand ? concat([avcc(sps), avcc(pps), nal]) : nal;
      samples.push({ data, isKeyframe: true });
    } else {
      const frameNum = (i - lastIdr) % 2 ** LOG2_MAX_FRAME_NUM;
      samples.push({ data: avcc(nalUnit(2, NAL_SLICE, skipSlice(g, frameNum))), isKeyframe: false });
    }
  }
  return { sps, pps, samples };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
