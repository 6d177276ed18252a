/**
 * The simulated extension keeps its source: decoded with mp4box (independent of the writer), the
 * clip holds the source's video samples byte for byte at its start (after) or end (before), then
 * new frames that the test-only H.264 reader decodes; it lasts the source plus the extension; its
 * audio track is the source's samples, padded with silence to the new length.
 * Sources: the sandbox's own clips (H.264 + MP3) and ffmpeg's (x264 + AAC, and a MOV without audio).
 */
import { describe, expect, it } from "vitest";
import { type Extension, extendClip } from "../../../src/sandbox-worker/encode/extend";
import { renderClip } from "../../../src/sandbox-worker/encode/video";
import { mp4 as emptyMp4 } from "../../helpers/media-fixtures";
import { avccNalUnits, nalHeader, parsePps, parseSps, readPcmPicture } from "./h264-reader";
import { probe } from "./mp4-probe";

const CORPUS = import.meta.glob<string>(
  ["../../media/corpus/mp4-faststart.mp4", "../../media/corpus/mov-video-only.mov", "../../media/corpus/mp4-h264-mp3-mono.mp4"],
  {
    query: "?inline",
    import: "default",
    eager: true,
  },
);
const corpus = (name: string) => {
  const url = CORPUS[`../../media/corpus/${name}`] as string;
  return Uint8Array.from(atob(url.slice(url.indexOf(",") + 1)), (c) => c.charCodeAt(0));
};

const SOURCES: [string, () => Promise<Uint8Array>][] = [
  [
    "a sandbox clip (H.264 + MP3)",
    async () => (await renderClip({ width: 96, height: 64, seconds: 1.5, seed: 3, container: "mp4", withAudio: true })).bytes,
  ],
  ["an ffmpeg MP4 (x264 + AAC, moov first)", async () => corpus("mp4-faststart.mp4")],
  ["an ffmpeg MOV without audio", async () => corpus("mov-video-only.mov")],
  ["an ffmpeg MP4 with mono MPEG-2 MP3", async () => corpus("mp4-h264-mp3-mono.mp4")],
];

function extended(source: Uint8Array, direction: "before" | "after", seconds: number): Extension {
  const r = extendClip(source, { direction, seconds, seed: 11 });
  if ("unreadable" in r) throw new Error(r.unreadable);
  return r;
}

const seconds = (p: Awaited<ReturnType<typeof probe>>) => p.info.duration / p.info.timescale;

describe.each(SOURCES)("extending %s", (_, make) => {
  it.each(["after", "before"] as const)(
    "%s: the source's samples as they were, new frames, source + extension long",
    async (direction) => {
      const source = await make();
      const src = await probe(source);
      const result = extended(source, direction, 2);
      const out = await probe(result.bytes);

      const srcVideo = src.info.videoTracks[0]!;
      const outVideo = out.info.videoTracks[0]!;
      const before = src.samples(srcVideo.id);
      const after = out.samples(outVideo.id);
      const n = before.length;
      const fps = before.length / (before.reduce((t, s) => t + s.duration, 0) / srcVideo.timescale);
      expect(result.addedFrames).toBe(Math.round(2 * fps));
      expect(after).toHaveLength(n + result.addedFrames);
      // The source, byte for byte, where the direction puts it, under its own sample entry.
      const kept = direction === "after" ? after.slice(0, n) : after.slice(after.length - n);
      kept.forEach((s, i) => {
        expect(s.data).toEqual(before[i]!.data);
        expect(s.isSync).toBe(before[i]!.isSync);
        expect(s.entry).toBe(before[i]!.entry);
      });
      // The new frames: this encoder's I_PCM keyframes under a second entry, readable with its SPS/PPS.
      const fresh = direction === "after" ? after.slice(n) : after.slice(0, after.length - n);
      expect(fresh[0]!.isSync).toBe(true);
      expect(new Set(fresh.map((s) => s.entry))).toEqual(new Set([before[0]!.entry + 1]));
      // An avc3 entry, with the SPS and PPS also in-band ahead of each new keyframe.
      expect(fresh[0]!.description.type).toBe("avc3");
      expect(avccNalUnits(fresh[0]!.data).map((u) => nalHeader(u).type)).toEqual([7, 8, 5]);
      const avcC = fresh[0]!.description.avcC;
      const sps = parseSps(avcC.SPS[0].data);
      const idr = avccNalUnits(fresh[0]!.data).find((u) => nalHeader(u).type === 5)!;
      const picture = readPcmPicture(idr, sps, parsePps(avcC.PPS[0].data));
      expect(picture.y.length).toBe(sps.mbW * 16 * sps.mbH * 16);
      expect([sps.width, sps.height]).toEqual([outVideo.video!.width & ~1, outVideo.video!.height & ~1]);

      // Presented in order: the source's frames first (after) or last (before), without gaps.
      const order = [...after].sort((x, y) => x.cts - y.cts).map((s) => (s.entry === before[0]!.entry ? "source" : "new"));
      const expected = [...Array(n).fill("source"), ...Array(result.addedFrames).fill("new")];
      expect(order).toEqual(direction === "after" ? expected : expected.reverse());

      // Duration: the source plus the added frames, in the movie and in the video track.
      const addedSeconds = result.addedFrames / fps;
      expect(seconds(out)).toBeCloseTo(seconds(src) + addedSeconds, 2);
      expect(result.seconds).toBeCloseTo(seconds(src) + addedSeconds, 2);
      expect([outVideo.video!.width, outVideo.video!.height]).toEqual([srcVideo.video!.width, srcVideo.video!.height]);

      // Audio: kept when the source had it, sample for sample, and as long as the video.
      const srcAudio = src.info.audioTracks[0];
      expect(out.info.audioTracks).toHaveLength(srcAudio ? 1 : 0);
      if (!srcAudio) {
        expect(result.audio).toBe("none");
        return;
      }
      expect(result.audio).toBe("padded_with_silence");
      const outAudio = out.info.audioTracks[0]!;
      expect(outAudio.codec).toBe(srcAudio.codec);
      const a = src.samples(srcAudio.id);
      const b = out.samples(outAudio.id);
      const keptAudio = direction === "after" ? b.slice(0, a.length) : b.slice(b.length - a.length);
      expect(keptAudio.map((s) => s.data)).toEqual(a.map((s) => s.data));
      // Silence in the source's own stream shape: for MP3, frames of its version, rate and channel mode.
      const padding = direction === "after" ? b.slice(a.length) : b.slice(0, b.length - a.length);
      if (/^mp4a\.(6b|69)$/i.test(outAudio.codec))
        for (const p of padding)
          expect([p.data[1], (p.data[2]! >> 2) & 3, p.data[3]! >> 6]).toEqual([
            a[0]!.data[1],
            (a[0]!.data[2]! >> 2) & 3,
            a[0]!.data[3]! >> 6,
          ]);
      // The track as presented (tkhd, after its edit) lasts as long as the movie.
      expect(outAudio.movie_duration / outAudio.movie_timescale).toBeCloseTo(seconds(out), 2);
      // Enough media to play the whole clip, and no more padding than the extension and a frame or two.
      const frame = b[0]!.duration / outAudio.timescale;
      expect(b.reduce((t, x) => t + x.duration, 0) / outAudio.timescale).toBeGreaterThanOrEqual(seconds(out) - 1e-9);
      expect((b.length - a.length) * frame).toBeLessThan(addedSeconds + 2 * frame);
    },
  );
});

describe("extendClip", () => {
  it("reports a source it cannot keep: no samples, or not MP4 at all", () => {
    expect(extendClip(emptyMp4(2, 320, 240), { direction: "after", seconds: 2, seed: 1 })).toEqual({
      unreadable: "the source has no H.264 video samples",
    });
    expect(extendClip(new Uint8Array(64), { direction: "after", seconds: 2, seed: 1 })).toHaveProperty("unreadable");
  });
});
