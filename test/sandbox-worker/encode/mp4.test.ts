import { describe, expect, it } from "vitest";
import { mp3Frames, synthesize } from "../../../src/sandbox-worker/encode/audio";
import { encodeH264 } from "../../../src/sandbox-worker/encode/h264";
import { muxMp4 } from "../../../src/sandbox-worker/encode/mp4";
import { noiseRgb } from "./expected-yuv";
import { majorBrand, probe } from "./mp4-probe";

function video(width: number, height: number, fps: number, frameCount: number, keyframeInterval: number) {
  const picture = noiseRgb(width, height, 5);
  return encodeH264({ width, height, fps, frameCount, keyframeInterval, frame: () => picture });
}

/** A track's duration in seconds as the movie header states it (after any edit list). */
const seconds = (t: { movie_duration: number; movie_timescale: number }) => t.movie_duration / t.movie_timescale;

describe("MP4 muxer", () => {
  it("writes one AVC track with exact duration, sample count and sync samples", async () => {
    const bytes = muxMp4({ container: "mp4", width: 64, height: 48, fps: 24, video: video(64, 48, 24, 60, 24) });
    expect(majorBrand(bytes)).toBe("isom");
    const { info, samples } = await probe(bytes);
    expect(info.tracks).toHaveLength(1);
    const [track] = info.videoTracks;
    expect(track?.codec).toMatch(/^avc1\.42/);
    expect(track?.video).toEqual({ width: 64, height: 48 });
    expect(track?.nb_samples).toBe(60);
    expect(info.duration / info.timescale).toBeCloseTo(2.5, 3);
    expect(seconds(track!)).toBeCloseTo(2.5, 3);
    expect(track!.duration / track!.timescale).toBe(2.5);
    const list = samples(track!.id);
    expect(list.flatMap((s, i) => (s.isSync ? [i] : []))).toEqual([0, 24, 48]);
    expect(new Set(list.map((s) => s.duration)).size).toBe(1);
  });

  it("keeps NTSC rates exact", async () => {
    const bytes = muxMp4({ container: "mp4", width: 32, height: 32, fps: 29.97, video: video(32, 32, 29.97, 30, 30) });
    const { info } = await probe(bytes);
    const track = info.videoTracks[0]!;
    expect(track.timescale).toBe(30000);
    expect(track.duration).toBe(30 * 1001);
    expect(info.duration).toBe(1001); // 30 frames at 30000/1001 fps: 1.001 s, in milliseconds
  });

  it("adds an MP3 track whose duration matches the video", async () => {
    const pcm = synthesize({ seconds: 3, sampleRate: 44100, channels: 2, seed: 4 });
    const mp3 = mp3Frames(pcm, 44100, 2, 128);
    const bytes = muxMp4({ container: "mp4", width: 64, height: 48, fps: 24, video: video(64, 48, 24, 72, 24), audio: mp3 });
    const { info, samples } = await probe(bytes);
    expect(info.tracks).toHaveLength(2);
    const audio = info.audioTracks[0]!;
    expect(audio.codec).toBe("mp4a.6b");
    expect(audio.audio).toMatchObject({ sample_rate: 44100, channel_count: 2 });
    expect(audio.nb_samples).toBe(mp3.frames.length);
    expect(seconds(audio)).toBeCloseTo(3, 3);
    expect(audio.edits?.[0]).toMatchObject({ media_time: mp3.delay });
    expect(info.duration / info.timescale).toBeCloseTo(3, 3);
    // Every audio sample is one whole MP3 frame.
    for (const s of samples(audio.id)) expect([s.data[0], (s.data[1] as number) & 0xe0]).toEqual([0xff, 0xe0]);
  });

  it("writes MOV with the QuickTime brand", async () => {
    const bytes = muxMp4({ container: "mov", width: 64, height: 48, fps: 25, video: video(64, 48, 25, 50, 25) });
    expect(majorBrand(bytes)).toBe("qt  ");
    const { info } = await probe(bytes);
    expect(info.brands).toEqual(["qt  ", "qt  "]);
    expect(info.videoTracks[0]?.codec).toMatch(/^avc1\.42/);
    expect(info.duration / info.timescale).toBe(2);
  });
});
