import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { type ProbedMedia, probeMedia } from "../../src/media/probe";
import * as f from "./fixtures";

const PARAM = "/images/0";
const approx = (n: number) => expect.closeTo(n, 9);

let fixtures: Record<string, Uint8Array>;
beforeAll(async () => {
  fixtures = await f.buildFixtures();
});

/** What each fixture of buildFixtures() must probe as (`bytes` is added from the fixture). */
const EXPECTED: Record<string, Omit<ProbedMedia, "bytes">> = {
  png: { kind: "image", mime: "image/png", width: 5, height: 3, alpha: false, animated: false, frames: 1 },
  "png-rgba": { kind: "image", mime: "image/png", width: 4, height: 6, alpha: true, animated: false, frames: 1 },
  "png-trns": { kind: "image", mime: "image/png", width: 5, height: 3, alpha: true, animated: false, frames: 1 },
  apng: { kind: "image", mime: "image/png", width: 4, height: 6, alpha: true, animated: true, frames: 3 },
  jpeg: { kind: "image", mime: "image/jpeg", width: 7, height: 5, alpha: false, animated: false, frames: 1 },
  "jpeg-progressive": { kind: "image", mime: "image/jpeg", width: 640, height: 480, alpha: false, animated: false, frames: 1 },
  "webp-lossy": { kind: "image", mime: "image/webp", width: 30, height: 20, alpha: false, animated: false, frames: 1 },
  "webp-lossless": { kind: "image", mime: "image/webp", width: 17, height: 9, alpha: true, animated: false, frames: 1 },
  "webp-extended-alpha": { kind: "image", mime: "image/webp", width: 300, height: 200, alpha: true, animated: false, frames: 1 },
  "webp-animated": { kind: "image", mime: "image/webp", width: 64, height: 48, alpha: true, animated: true, frames: 3 },
  gif: { kind: "image", mime: "image/gif", width: 10, height: 8, alpha: false, animated: false, frames: 1 },
  "gif-animated": { kind: "image", mime: "image/gif", width: 10, height: 8, alpha: false, animated: true, frames: 2 },
  "gif-transparent": { kind: "image", mime: "image/gif", width: 10, height: 8, alpha: true, animated: false, frames: 1 },
  mp4: { kind: "video", mime: "video/mp4", width: 640, height: 360, duration_seconds: 2.5, has_audio: true },
  "mp4-v1": { kind: "video", mime: "video/mp4", width: 1920, height: 1080, duration_seconds: 4, has_audio: false },
  mov: { kind: "video", mime: "video/quicktime", width: 320, height: 240, duration_seconds: 3.5, has_audio: true },
  "mp4-fragmented": { kind: "video", mime: "video/mp4", width: 160, height: 90, duration_seconds: 0.8, has_audio: false },
  m4a: { kind: "audio", mime: "audio/mp4", duration_seconds: 2 },
  webm: { kind: "video", mime: "video/webm", width: 320, height: 240, duration_seconds: 2.5, has_audio: true },
  wav: { kind: "audio", mime: "audio/wav", duration_seconds: 0.5, sample_rate: 8000, channels: 2, bits_per_sample: 16 },
  // Without a Xing/Info or VBRI header the frames are counted: 1152 samples each in MPEG-1, 576 in MPEG-2.
  mp3: { kind: "audio", mime: "audio/mpeg", duration_seconds: (10 * 1152) / 44100, sample_rate: 44100, channels: 2 },
  "mp3-xing": { kind: "audio", mime: "audio/mpeg", duration_seconds: (100 * 1152) / 44100, sample_rate: 44100, channels: 2 },
  "mp3-info-mono": { kind: "audio", mime: "audio/mpeg", duration_seconds: (50 * 1152) / 44100, sample_rate: 44100, channels: 1 },
  "mp3-vbri": { kind: "audio", mime: "audio/mpeg", duration_seconds: (40 * 1152) / 44100, sample_rate: 44100, channels: 2 },
  "mp3-id3": { kind: "audio", mime: "audio/mpeg", duration_seconds: (10 * 1152) / 44100, sample_rate: 44100, channels: 2 },
  "mp3-mpeg2": { kind: "audio", mime: "audio/mpeg", duration_seconds: (20 * 576) / 22050, sample_rate: 22050, channels: 2 },
  flac: { kind: "audio", mime: "audio/flac", duration_seconds: 2.5, sample_rate: 44100, channels: 2, bits_per_sample: 16 },
  "flac-id3": { kind: "audio", mime: "audio/flac", duration_seconds: 0.5, sample_rate: 48000, channels: 1, bits_per_sample: 24 },
  "ogg-vorbis": { kind: "audio", mime: "audio/ogg", duration_seconds: 3, sample_rate: 44100, channels: 2 },
  "ogg-opus": { kind: "audio", mime: "audio/ogg", duration_seconds: 1.5, sample_rate: 48000, channels: 2 },
};

function mediaError(run: () => unknown): ApiError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error("expected an ApiError");
}

describe("probeMedia identifies each format by its bytes and reads its facts", () => {
  it("has an expectation for every fixture", () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(fixtures).sort());
  });

  it.each(Object.keys(EXPECTED))("%s", (name) => {
    const data = fixtures[name]!;
    const want = EXPECTED[name]!;
    const got = probeMedia(data, PARAM);
    expect(got).toEqual({
      ...want,
      bytes: data.length,
      ...(want.duration_seconds !== undefined ? { duration_seconds: approx(want.duration_seconds) } : {}),
    });
  });

  it("reads a WebM without audio and an audio-only WebM", () => {
    expect(probeMedia(f.webm({ audio: false, width: 1280, height: 720, durationMs: 1000 }), PARAM)).toMatchObject({
      kind: "video",
      mime: "video/webm",
      width: 1280,
      height: 720,
      duration_seconds: approx(1),
      has_audio: false,
    });
    expect(probeMedia(f.webm({ video: false }), PARAM)).toMatchObject({ kind: "audio", mime: "audio/webm" });
  });

  it("takes a fragmented MP4's duration from mvex/mehd when present", () => {
    expect(probeMedia(f.mp4Fragmented({ mehd: 1234 }), PARAM).duration_seconds).toBeCloseTo(1.234, 9);
  });

  it("reads a WAV whose data chunk is cut as the whole sample frames it holds, as decoders play it", () => {
    const data = f.wav({ rate: 8000, channels: 2, bits: 16, seconds: 0.5 });
    // 0.25 s of 4-byte frames and 3 bytes of a frame that is not whole.
    expect(probeMedia(cut(data, 8000 - 3), PARAM).duration_seconds).toBeCloseTo(0.25, 9);
  });

  it("reads an MP3 behind two ID3v2 tags and junk, counting its frames", () => {
    const second = f.bytes("ID3", [4, 0, 0, 0, 0, 0, 4], "abcd");
    const data = f.bytes(second, f.mp3({ id3: true }).subarray(0, 310), "junk", f.mp3({ frames: 7 }));
    expect(probeMedia(data, PARAM)).toMatchObject({ mime: "audio/mpeg", duration_seconds: approx((7 * 1152) / 44100) });
  });

  it("accepts a WAV whose data size was left at its maximum by a streaming writer", () => {
    const data = f.wav({ rate: 16000, channels: 1, bits: 16, seconds: 0.25 });
    const dataChunk = data.length - 8000 - 8;
    data.set(f.le32(0xffffffff), dataChunk + 4);
    expect(probeMedia(data, PARAM).duration_seconds).toBeCloseTo(0.25, 9);
  });
});

/** Variants that must be refused as invalid_media: the format is recognised, its structure is not sound. */
const INVALID: [string, () => Uint8Array | Promise<Uint8Array>][] = [
  ["PNG whose first chunk is not IHDR", async () => withBytes(await f.pngRgb(), 12, "IHDX")],
  ["PNG with zero width", async () => withBytes(await f.pngRgb(), 16, [0, 0, 0, 0])],
  ["PNG without IDAT", async () => f.bytes((await f.pngRgb()).subarray(0, 33), f.pngChunk("IEND"))],
  ["PNG cut before IEND", async () => cut(await f.pngRgb(), 6)],
  ["APNG declaring zero frames", () => f.apng(0)],
  ["JPEG with a scan before the frame header", () => f.bytes([0xff, 0xd8], [0xff, 0xda, 0, 4, 0, 0], [0xff, 0xd9])],
  ["JPEG with zero height", () => f.jpeg(7, 0)],
  ["JPEG cut in the scan data", () => cut(f.jpeg(), 3)],
  ["JPEG without a frame header", () => f.bytes([0xff, 0xd8], [0xff, 0xe0, 0, 4, 0, 0], [0xff, 0xd9])],
  ["WebP with a bad VP8 start code", () => withBytes(f.webpLossy(), 23, [0x00])],
  ["WebP whose RIFF size passes the end", () => cut(f.webpLossy(), 1)],
  ["WebP VP8L of an unknown version", () => withBytes(f.webpLossless(), 24, [0xe0])],
  ["WebP marked animated without frames", () => f.riff("WEBP", f.riffChunk("VP8X", [0x02, 0, 0, 0, 9, 0, 0, 9, 0, 0]))],
  ["WebP with an unknown first chunk", () => f.riff("WEBP", f.riffChunk("ABCD", [1, 2]))],
  ["GIF without an image", () => f.bytes("GIF89a", f.le16(1), f.le16(1), [0, 0, 0], [0x3b])],
  ["GIF without a trailer", () => cut(f.gif(), 1)],
  ["GIF with zero width", () => withBytes(f.gif(), 6, [0, 0])],
  ["GIF with an unknown block", () => f.bytes(f.gif().subarray(0, 19), [0x99])],
  ["MP4 without moov", () => f.bytes(f.box("ftyp", "isom", f.be32(0), "isom"), f.box("mdat", f.zeros(16)))],
  ["MP4 cut in its last box", () => cut(f.mp4(), 10)],
  ["MP4 without mvhd", () => f.bytes(f.box("ftyp", "isom", f.be32(0), "isom"), f.box("moov", f.box("free")))],
  ["MP4 with a zero timescale", () => f.bytes(f.box("ftyp", "isom", f.be32(0), "isom"), f.box("moov", f.mvhd(0, 0, 10)))],
  ["MP4 without any video or audio track", () => f.isoFile({ brand: "isom", movie: { timescale: 1, duration: 1 }, tracks: [] })],
  [
    "MP4 video track without any size",
    () =>
      f.isoFile({
        brand: "isom",
        movie: { timescale: 1, duration: 1 },
        tracks: [{ handler: "vide", timescale: 1, duration: 1 }],
      }),
  ],
  ["MP4 box with a size below its header", () => f.bytes(f.box("ftyp", "isom"), f.be32(4), "moov")],
  ["WebM cut inside the EBML header", () => f.webm().subarray(0, 20)],
  ["WebM without a Segment", () => f.webmHeader()],
  ["WAV without a fmt chunk", () => f.riff("WAVE", f.riffChunk("data", f.zeros(8)))],
  ["WAV with zero channels", () => withBytes(f.wav(), 22, [0, 0])],
  [
    "WAV whose data chunk holds less than one sample frame",
    () => f.wav({ rate: 8000, channels: 2, bits: 16, seconds: 0.5 }).subarray(0, 47),
  ],
  [
    "MP3 whose every frame has a reserved bitrate index, after an ID3 tag",
    () =>
      f.bytes("ID3", [3, 0, 0, 0, 0, 0, 0], ...Array.from({ length: 4 }, () => f.bytes([0xff, 0xfb, 0xf0, 0x44], f.zeros(413)))),
  ],
  ["two ID3v2 tags followed by no audio", () => f.bytes("ID3", [3, 0, 0, 0, 0, 0, 2], [1, 2], "ID3", [4, 0, 0, 0, 0, 0, 0])],
  ["MP3 whose ID3 tag runs past the end", () => f.mp3({ id3: true }).subarray(0, 200)],
  ["MP3 whose first frame is cut", () => f.mp3({ frames: 1 }).subarray(0, 100)],
  ["ID3 tag followed by no audio", () => f.bytes("ID3", [3, 0, 0, 0, 0, 0, 2], [1, 2])],
  ["FLAC whose first block is not STREAMINFO", () => withBytes(f.flac(), 4, [0x04])],
  ["FLAC with a zero sample rate", () => f.flac({ rate: 0 })],
  ["FLAC cut inside its metadata", () => f.flac().subarray(0, 30)],
  ["Ogg cut in its last page", () => cut(f.oggVorbis(), 5)],
  ["Ogg Vorbis with a zero sample rate", () => f.oggVorbis({ rate: 0 })],
  ["Ogg with garbage after a page", () => f.bytes(f.oggOpus(), "garbage!")],
  ["Ogg Opus with zero channels", () => f.oggOpus({ channels: 0 })],
];

/** Bytes that are no supported format at all. */
const UNSUPPORTED: [string, () => Uint8Array][] = [
  ["empty input", () => new Uint8Array()],
  ["plain text", () => f.bytes("hello, world")],
  ["a ZIP archive", () => f.bytes("PK\x03\x04", f.zeros(30))],
  ["a BMP image", () => f.bytes("BM", f.zeros(60))],
  ["a RIFF AVI", () => f.riff("AVI ", f.riffChunk("LIST", "hdrl"))],
  ["ADTS AAC", () => f.bytes([0xff, 0xf1, 0x50, 0x80], f.zeros(60))],
  ["a Matroska (not WebM) document", () => f.bytes(f.webmHeader("matroska"), f.ebml([0x18, 0x53, 0x80, 0x67]))],
  ["Ogg Theora", () => f.oggPage(2, 0n, 1, 0, [f.bytes([0x80], "theora", f.zeros(40))])],
  ["Ogg FLAC", () => f.oggPage(2, 0n, 1, 0, [f.bytes([0x7f], "FLAC", f.zeros(40))])],
];

function withBytes(data: Uint8Array, offset: number, replacement: string | number[]): Uint8Array {
  const copy = data.slice();
  copy.set(f.bytes(replacement), offset);
  return copy;
}

const cut = (data: Uint8Array, fromEnd: number) => data.subarray(0, data.length - fromEnd);

describe("probeMedia refuses", () => {
  it.each(INVALID)("%s: invalid_media with the param", async (_, build) => {
    const data = await build();
    const e = mediaError(() => probeMedia(data, "/video"));
    expect(e.code, e.message).toBe("invalid_media");
    expect(e.param).toBe("/video");
  });

  it.each(UNSUPPORTED)("%s: unsupported_media_type with the param", (_, build) => {
    const e = mediaError(() => probeMedia(build(), "/audio/2"));
    expect(e.code, e.message).toBe("unsupported_media_type");
    expect(e.param).toBe("/audio/2");
  });
});

describe("probeMedia on hostile bytes", () => {
  const MEDIA_ERRORS = new Set(["invalid_media", "unsupported_media_type"]);

  /** A result or a media error carrying the param: never any other exception. */
  function probesOrRefuses(data: Uint8Array): void {
    try {
      const got = probeMedia(data, PARAM);
      expect(got.bytes).toBe(data.length);
    } catch (e) {
      if (!(e instanceof ApiError) || !MEDIA_ERRORS.has(e.code) || e.param !== PARAM) throw e;
    }
  }

  it("random byte arrays", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 512 }), probesOrRefuses), { numRuns: 3000 });
  });

  it("random truncations of every fixture", () => {
    const names = Object.keys(fixtures);
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.nat(), (name, n) => {
        const data = fixtures[name]!;
        probesOrRefuses(data.subarray(0, n % (data.length + 1)));
      }),
      { numRuns: 3000 },
    );
  });

  it("random byte changes in every fixture", () => {
    const names = Object.keys(fixtures);
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        (name, edits) => {
          const data = fixtures[name]!.slice();
          for (const [at, value] of edits) data[at % data.length] = value;
          probesOrRefuses(data);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("every single-byte truncation of every fixture", () => {
    for (const data of Object.values(fixtures)) for (let n = 0; n <= data.length; n++) probesOrRefuses(data.subarray(0, n));
  });
});
