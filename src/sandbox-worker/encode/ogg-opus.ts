/**
 * Ogg Opus (RFC 7845): 16-bit PCM encoded by libopus (opus.ts) in 20 ms packets and carried in
 * an Ogg stream (ogg.ts): the identification header (OpusHead) alone on the first page, the
 * comment header (OpusTags) on the next, then the audio pages.
 *
 * Rates: Opus codes 8, 12, 16, 24 or 48 kHz input; any other rate is first resampled to 48 kHz.
 * Whatever the input, an Opus stream decodes at 48 kHz and its granule positions count 48 kHz
 * samples; OpusHead records the requested rate only as the "original input sample rate", which
 * players may use to resample back.
 *
 * Timing: the encoder delays its output by its lookahead, so the stream says to drop that many
 * decoded samples first (pre-skip), and the last page's granule position (pre-skip plus the
 * input's length at 48 kHz) says where the audio ends within the last packet (end trimming).
 */
import { type OggPacket, oggStream } from "./ogg";
import { OPUS_RATES, OpusEncoder } from "./opus";

export interface OggOpusOptions {
  /** Target bits per second over all channels. */
  bitrate: number;
  /** `voip` favours speech intelligibility, `audio` fidelity to the input. */
  application: "voip" | "audio";
  /** The Ogg stream's serial number (any 32-bit value; chosen per file). */
  serial: number;
}

/** 20 ms of audio at 48 kHz: how far each packet moves the granule position. */
const PACKET_GRANULES = 960;
/** About a second of audio per page, as common encoders write. */
const PACKETS_PER_PAGE = 50;
const VENDOR = "media-gateway sandbox (libopus)";

export function encodeOggOpus(samples: Int16Array, sampleRate: number, channels: number, options: OggOpusOptions): Uint8Array {
  if (channels !== 1 && channels !== 2) throw new Error("Ogg Opus here is mono or stereo (channel mapping family 0)");
  const rate = (OPUS_RATES as readonly number[]).includes(sampleRate) ? sampleRate : 48000;
  const pcm = rate === sampleRate ? samples : resample(samples, channels, sampleRate, rate);
  const encoder = new OpusEncoder(rate, channels, options.application);
  try {
    encoder.bitrate = options.bitrate;
    const perSecond = 48000 / rate;
    const lookahead = encoder.lookahead;
    const preSkip = lookahead * perSecond;
    const length = pcm.length / channels;
    // Feed the lookahead's worth of silence after the input so that its last samples come out.
    const frames = Math.ceil((length + lookahead) / encoder.frameSize);
    const padded = new Int16Array(frames * encoder.frameSize * channels);
    padded.set(pcm);
    const audio: OggPacket[] = [];
    const step = encoder.frameSize * channels;
    for (let f = 0; f < frames; f++) {
      audio.push({ data: encoder.encode(padded.subarray(f * step, (f + 1) * step)), granule: BigInt((f + 1) * PACKET_GRANULES) });
    }
    // End trimming: less than one packet is cut, so the last page always holds what it trims.
    (audio[audio.length - 1] as OggPacket).granule = BigInt(preSkip + length * perSecond);
    return oggStream(
      [[{ data: opusHead(channels, preSkip, sampleRate), granule: 0n }], [{ data: opusTags(VENDOR), granule: 0n }], audio],
      { serial: options.serial, packetsPerPage: PACKETS_PER_PAGE },
    );
  } finally {
    encoder.destroy();
  }
}

/** RFC 7845 §5.1: version 1, channel mapping family 0 (mono or stereo), no output gain. */
function opusHead(channels: number, preSkip: number, inputRate: number): Uint8Array {
  const out = new Uint8Array(19);
  const v = new DataView(out.buffer);
  out.set(new TextEncoder().encode("OpusHead"));
  v.setUint8(8, 1);
  v.setUint8(9, channels);
  v.setUint16(10, preSkip, true);
  v.setUint32(12, inputRate, true);
  v.setInt16(16, 0, true);
  v.setUint8(18, 0);
  return out;
}

/** RFC 7845 §5.2: the vendor string and an empty comment list. */
function opusTags(vendor: string): Uint8Array {
  const name = new TextEncoder().encode(vendor);
  const out = new Uint8Array(8 + 4 + name.length + 4);
  const v = new DataView(out.buffer);
  out.set(new TextEncoder().encode("OpusTags"));
  v.setUint32(8, name.length, true);
  out.set(name, 12);
  v.setUint32(12 + name.length, 0, true);
  return out;
}

/** Linear interpolation between rates, per channel: plain, and enough for synthetic audio. */
export function resample(samples: Int16Array, channels: number, from: number, to: number): Int16Array {
  const n = samples.length / channels;
  const m = Math.round((n * to) / from);
  const out = new Int16Array(m * channels);
  for (let i = 0; i < m; i++) {
    const x = (i * from) / to;
    const j = Math.floor(x);
    const t = x - j;
    const k = Math.min(n - 1, j + 1);
    for (let c = 0; c < channels; c++) {
      const a = samples[Math.min(n - 1, j) * channels + c] as number;
      const b = samples[k * channels + c] as number;
      out[i * channels + c] = Math.round(a + (b - a) * t);
    }
  }
  return out;
}
