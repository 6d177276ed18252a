/**
 * The probe against files written by ffmpeg (test/media/corpus/, made by scripts/media-corpus.sh):
 * what ffprobe accepts among the supported formats, the probe and admission's validation accept,
 * with ffprobe's format, dimensions, audio parameters and duration; what ffprobe refuses, they refuse.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { probeMedia } from "../../src/media/probe";
import { validateMedia } from "../../src/media/validate";
import manifest from "./corpus/manifest.json";

interface Stream {
  codec_type: "video" | "audio";
  codec_name: string;
  width?: number;
  height?: number;
  sample_rate?: number;
  channels?: number;
}
type Reading =
  | { ffprobe: "accepted"; format: string; brand: string | null; duration: number | null; streams: Stream[] }
  | { ffprobe: "refused"; error: string };

const READINGS = manifest as Record<string, Reading>;
const FILES = import.meta.glob<string>(["./corpus/*", "!./corpus/manifest.json"], {
  query: "?inline",
  import: "default",
  eager: true,
});

function bytesOf(name: string): Uint8Array {
  const url = FILES[`./corpus/${name}`];
  if (!url) throw new Error(`${name} is in the manifest but not in test/media/corpus/`);
  const binary = atob(url.slice(url.indexOf(",") + 1));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * How far the probe's duration may be from ffprobe's: 10 ms plus 0.5%. ffprobe counts an Ogg
 * Opus stream's pre-skip (6.5 ms of encoder priming) that RFC 7845 says to drop, estimates
 * constant-bitrate MP3 from the byte count where the probe counts frames, and times a WAV's last
 * partial sample frame.
 */
const tolerance = (seconds: number) => 0.01 + 0.005 * seconds;

/** Files ffprobe opens that the probe refuses on purpose, and why. */
const DELIBERATELY_REFUSED: Record<string, string> = {
  "mp4-faststart-cut-in-mdat.mp4":
    "its sample table points past the end of the file: a decoder stops before the duration the file declares",
};

/** The media type the probe must name for ffprobe's reading. */
function expectedMime(r: Extract<Reading, { ffprobe: "accepted" }>): string {
  const video = r.streams.some((s) => s.codec_type === "video");
  const byFormat: Record<string, string> = {
    mp3: "audio/mpeg",
    wav: "audio/wav",
    flac: "audio/flac",
    ogg: "audio/ogg",
    png_pipe: "image/png",
    apng: "image/png",
    jpeg_pipe: "image/jpeg",
    webp_pipe: "image/webp",
    gif: "image/gif",
  };
  if (r.format === "mov,mp4,m4a,3gp,3g2,mj2")
    return !video ? "audio/mp4" : r.brand?.trim() === "qt" ? "video/quicktime" : "video/mp4";
  if (r.format === "matroska,webm") return video ? "video/webm" : "audio/webm";
  const mime = byFormat[r.format];
  if (!mime) throw new Error(`no expectation for ffprobe's format ${r.format}`);
  return mime;
}

const accepted = Object.entries(READINGS).filter(
  (e): e is [string, Extract<Reading, { ffprobe: "accepted" }>] => e[1].ffprobe === "accepted" && !DELIBERATELY_REFUSED[e[0]],
);
const refused = Object.entries(READINGS).filter(([name, r]) => r.ffprobe === "refused" || DELIBERATELY_REFUSED[name]);

async function refusal(data: Uint8Array): Promise<ApiError | undefined> {
  try {
    await validateMedia(data, probeMedia(data, "/video"), "/video");
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  return undefined;
}

describe("media corpus made with ffmpeg", () => {
  it("has a reading for every file and a file for every reading", () => {
    const files = Object.keys(FILES).map((k) => k.replace("./corpus/", ""));
    expect(files.sort()).toEqual(Object.keys(READINGS).sort());
    expect(accepted.length).toBeGreaterThan(30);
    expect(refused.length).toBeGreaterThanOrEqual(4);
  });

  it.each(accepted)("%s: read as ffprobe reads it", async (name, r) => {
    const data = bytesOf(name);
    const got = probeMedia(data, "/video");
    await expect(validateMedia(data, got, "/video")).resolves.toBeUndefined();
    expect(got.mime).toBe(expectedMime(r));
    expect(got.bytes).toBe(data.length);
    const video = r.streams.find((s) => s.codec_type === "video");
    const audio = r.streams.find((s) => s.codec_type === "audio");
    // ffprobe leaves an animated WebP unsized (it does not decode those); the probe reads its canvas.
    if (video?.width) expect([got.width, got.height]).toEqual([video.width, video.height]);
    if (got.kind === "video") expect(got.has_audio).toBe(audio !== undefined);
    if (got.kind !== "image" && r.duration !== null) {
      expect(got.duration_seconds).toBeDefined();
      expect(Math.abs((got.duration_seconds as number) - r.duration)).toBeLessThanOrEqual(tolerance(r.duration));
    }
    if (got.sample_rate !== undefined) expect(got.sample_rate).toBe(audio?.sample_rate);
    if (got.channels !== undefined) expect(got.channels).toBe(audio?.channels);
  });

  it.each(refused)("%s: refused, as ffprobe refuses it", async (name) => {
    const e = await refusal(bytesOf(name));
    expect(e, `${name} was accepted`).toBeDefined();
    expect(["invalid_media", "unsupported_media_type"]).toContain(e?.code);
    expect(e?.param).toBe("/video");
  });
});

describe("the corpus cut and changed at random", () => {
  /** A result or a media error carrying the param, from the probe and from validation: never another exception. */
  async function probesOrRefuses(data: Uint8Array): Promise<void> {
    const e = await refusal(data);
    if (e) {
      expect(["invalid_media", "unsupported_media_type"]).toContain(e.code);
      expect(e.param).toBe("/video");
    }
  }
  const names = Object.keys(READINGS);

  it("truncations and byte changes of every file", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.nat(),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
        async (name, cutAt, edits) => {
          const data = bytesOf(name).slice();
          for (const [at, value] of edits) data[at % data.length] = value;
          await probesOrRefuses(data.subarray(0, data.length - (cutAt % (data.length + 1))));
        },
      ),
      { numRuns: 1500 },
    );
  });
});
