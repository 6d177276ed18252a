/**
 * Synthetic clips for the sandbox: deterministic pictures encoded with the I_PCM/P_Skip H.264
 * encoder, optionally with an MP3 soundtrack, muxed into MP4 or MOV. Each keyframe costs about
 * 1.5 bytes per pixel and the frames between are nearly free, so the size grows with the number
 * of keyframes; a byte budget stretches the keyframe interval when a clip would be too large.
 */
import { encodeH264 } from "./h264";
import { mp3Frames } from "./mp3";
import { muxMp4 } from "./mp4";
import { crossFade, type RGBImage, resizeRgb, scene } from "./picture";
import { synthesize } from "./synth";

export { type RGBImage, resizeRgb } from "./picture";

export interface ClipOptions {
  /** Odd sizes are rounded down to even (4:2:0 needs whole chroma samples). */
  width: number;
  height: number;
  seconds: number;
  fps?: number;
  seed: number;
  container: "mp4" | "mov";
  /** The first frame shows exactly this picture (scaled to the clip). */
  firstFrame?: RGBImage;
  /** The last frame shows exactly this picture (scaled); it is coded as a keyframe. */
  lastFrame?: RGBImage;
  withAudio?: boolean;
  /** Frames from one keyframe to the next; one second by default. */
  keyframeInterval?: number;
  /** Upper bound on the keyframes' bytes; the interval is stretched to stay under it. */
  maxBytes?: number;
}

export interface Clip {
  bytes: Uint8Array;
  /** The picture of the last frame, RGB at the clip's size (before the YUV conversion). */
  lastFrameRgb: Uint8Array;
  frameCount: number;
  fps: number;
  width: number;
  height: number;
  keyframeInterval: number;
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const AUDIO_RATE = 44100;
const AUDIO_KBPS = 128;

/** The pictures of a clip, H.264-encoded, without a container: for renderClip and for extensions. */
export interface RenderedVideo extends Omit<Clip, "bytes"> {
  video: ReturnType<typeof encodeH264>;
}

export function renderVideo(
  opts: Omit<ClipOptions, "container" | "withAudio"> & Pick<Parameters<typeof encodeH264>[0], "parameterSets">,
): RenderedVideo {
  const fps = opts.fps ?? 24;
  const width = Math.max(2, opts.width & ~1);
  const height = Math.max(2, opts.height & ~1);
  if (!(opts.seconds > 0)) throw new RangeError(`seconds must be positive, got ${opts.seconds}`);
  const frameCount = Math.max(1, Math.round(opts.seconds * fps));
  const first = opts.firstFrame && resizeRgb(opts.firstFrame, width, height);
  const last = opts.lastFrame && resizeRgb(opts.lastFrame, width, height);

  // I_PCM: 384 bytes per 16×16 macroblock, whatever the picture.
  const keyBytes = Math.ceil(width / 16) * Math.ceil(height / 16) * 388;
  const budgetKeyframes = Math.floor((opts.maxBytes ?? DEFAULT_MAX_BYTES) / keyBytes) - (last ? 1 : 0);
  if (budgetKeyframes < 1) throw new RangeError(`a ${width}×${height} keyframe alone exceeds the byte budget`);
  const requested = Math.max(1, Math.round(opts.keyframeInterval ?? fps));
  const interval = Math.max(requested, Math.ceil(frameCount / budgetKeyframes));

  const sc = scene(width, height, opts.seed);
  const progress = (i: number) => (frameCount > 1 ? i / (frameCount - 1) : 1);
  const picture = (i: number): Uint8Array => {
    const t = i / fps;
    if (first && i === 0) return first;
    if (last && i === frameCount - 1) return last;
    if (first && last) return crossFade(first, last, progress(i));
    if (first) {
      const p = first.slice();
      sc.drawShape(p, t);
      return p;
    }
    const p = sc.background(t);
    sc.drawShape(p, t);
    return last ? crossFade(p, last, progress(i)) : p;
  };

  let lastFrameRgb: Uint8Array = new Uint8Array(0);
  const video = encodeH264({
    width,
    height,
    fps,
    frameCount,
    keyframeInterval: interval,
    isKeyframe: (i) => i % interval === 0 || (last !== undefined && i === frameCount - 1),
    frame: (i) => {
      // Keyframes are requested in order, so the last one asked for is what the clip ends on.
      lastFrameRgb = picture(i);
      return lastFrameRgb;
    },
    ...(opts.parameterSets ? { parameterSets: opts.parameterSets } : {}),
  });

  return { video, lastFrameRgb, frameCount, fps, width, height, keyframeInterval: interval };
}

export async function renderClip(opts: ClipOptions): Promise<Clip> {
  const { video, ...clip } = renderVideo(opts);
  const { width, height, fps, frameCount } = clip;
  let audio: Parameters<typeof muxMp4>[0]["audio"];
  if (opts.withAudio) {
    const pcm = synthesize({ seconds: frameCount / fps, sampleRate: AUDIO_RATE, channels: 2, seed: opts.seed });
    audio = mp3Frames(pcm, AUDIO_RATE, 2, AUDIO_KBPS);
  }
  const bytes = muxMp4({ container: opts.container, width, height, fps, video, audio });
  return { bytes, ...clip };
}
