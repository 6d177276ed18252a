/**
 * Every capability through the public API on the sandbox provider, each output downloaded and
 * decoded by packages independent of the sandbox's encoders (fast-png, mp4box, music-metadata)
 * and a test-only H.264 reader, then checked against the request.
 */
import { exports } from "cloudflare:workers";
import { decode } from "fast-png";
import jpeg from "jpeg-js";
import { parseBuffer } from "music-metadata";
import { beforeAll, describe, expect, it } from "vitest";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { png, pngInput } from "../helpers/media-fixtures";
import { newKey, waitFor } from "../helpers/tasks";
import { artifactInput, catalogView, PATHS } from "../operations/requests";
import { expectedYuv, maxDifference } from "../sandbox-worker/encode/expected-yuv";
import { avccNalUnits, nalHeader, parsePps, parseSps, readPcmPicture } from "../sandbox-worker/encode/h264-reader";
import { majorBrand, probe } from "../sandbox-worker/encode/mp4-probe";

let t: TestTenant;
let detail: Record<string, any> = {};
let voices: any[];
beforeAll(async () => {
  t = await newTenant({ credits: "100000000" });
  ({ detail, voices } = await catalogView(t.api_key));
});

async function run(cap: string, body: Record<string, unknown>) {
  const res = await call(PATHS[cap] as string, { key: t.api_key, body, headers: { "Idempotency-Key": newKey() } });
  expect(res.status, res.text.slice(0, 400)).toBe(202);
  const done = await waitFor(t, res.json.task_id);
  expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
  expect(done.output.provider).toMatchObject({ name: "sandbox", simulated: true });
  return done;
}

async function download(url: string): Promise<{ bytes: Uint8Array; type: string | null }> {
  const res = await exports.default.fetch(new Request(url, { headers: { Authorization: `Bearer ${t.api_key}` } }));
  expect(res.status).toBe(200);
  return { bytes: new Uint8Array(await res.arrayBuffer()), type: res.headers.get("content-type") };
}

/** A card of the capability that has every listed control. */
function cardWith(cap: string, ...fields: string[]) {
  return detail[cap].models.find((m: any) => fields.every((f) => m.controls.some((c: any) => c.field === f)));
}
const allowed = (card: any, field: string) => card.controls.find((c: any) => c.field === field)?.allowed_values ?? [];

describe("video", () => {
  it("text-to-video: an H.264 MP4 of the requested duration, aspect and tier, with audio and a last-frame PNG", async () => {
    const card = cardWith("text_to_video", "duration", "resolution", "generate_audio", "return_last_frame");
    const duration = allowed(card, "duration").find((d: number) => d <= 6) ?? allowed(card, "duration")[0];
    const resolution = allowed(card, "resolution").includes("480p") ? "480p" : allowed(card, "resolution")[0];
    const done = await run("text_to_video", {
      model: card.model,
      prompt: "waves",
      duration,
      resolution,
      generate_audio: true,
      return_last_frame: true,
      aspect_ratio: "16:9",
    });
    const [videoOut, frame] = done.output.artifacts;
    expect(videoOut.content_type).toBe("video/mp4");
    const { bytes } = await download(videoOut.url);
    const p = await probe(bytes);
    const v = p.info.videoTracks[0] as any;
    expect(v.codec).toMatch(/^avc1\.42/);
    expect(v.video.height).toBe(Number.parseInt(resolution, 10));
    expect(v.video.width / v.video.height).toBeCloseTo(16 / 9, 1);
    expect(p.info.duration / p.info.timescale).toBeCloseTo(duration, 2);
    expect(p.info.audioTracks).toHaveLength(1);
    const last = decode((await download(frame.url)).bytes);
    expect([last.width, last.height]).toEqual([v.video.width, v.video.height]);
    expect(done.usage.output_video_seconds).toBe(duration);
    expect(done.usage.lines[0]).toMatchObject({ meter: "output_video_seconds", quantity: String(duration) });
  });

  it("MOV where the card allows it", async () => {
    const card = detail.text_to_video.models.find((m: any) => allowed(m, "output_format").includes("mov"));
    if (!card) return;
    const done = await run("text_to_video", {
      model: card.model,
      prompt: "waves",
      output_format: "mov",
      resolution: allowed(card, "resolution")[0],
    });
    const { bytes, type } = await download(done.output.artifacts[0].url);
    expect(type).toBe("video/quicktime");
    expect(majorBrand(bytes)).toBe("qt  ");
  });

  it("image-to-video starts on the opening image; frames-to-video starts on the first and ends on the last", async () => {
    const i2v = detail.image_to_video.models[0];
    const opening = await png(512, 512);
    const done = await run("image_to_video", {
      model: i2v.model,
      image: await pngInput(512, 512),
      prompt: "move",
      resolution: allowed(i2v, "resolution")[0],
    });
    const first = await firstAndLastPictures((await download(done.output.artifacts[0].url)).bytes);
    const src = decode(opening);
    const { resizeRgb } = await import("../../src/sandbox-worker/encode/video");
    const expected = expectedYuv(
      resizeRgb({ width: src.width, height: src.height, data: src.data as Uint8Array }, first.width, first.height),
      first.width,
      first.height,
    );
    expect(maxDifference(first.firstPicture, expected)).toBeLessThanOrEqual(2);

    const f2v = detail.frames_to_video.models[0];
    const a = await pngInput(512, 512);
    const bBytes = await png(512, 512, false);
    // a different last frame: invert it
    const b = decode(bBytes);
    const inverted = Uint8Array.from(b.data as Uint8Array, (x) => 255 - x);
    const { encodePng } = await import("../../src/media/png");
    const { dataUri } = await import("../helpers/media-fixtures");
    const lastPng = await encodePng(512, 512, inverted, 3);
    const f = await run("frames_to_video", {
      model: f2v.model,
      first_frame: a,
      last_frame: { type: "data_uri", data_uri: dataUri("image/png", lastPng) },
      resolution: allowed(f2v, "resolution")[0],
    });
    const pics = await firstAndLastPictures((await download(f.output.artifacts[0].url)).bytes);
    const expLast = expectedYuv(
      resizeRgb({ width: 512, height: 512, data: inverted }, pics.width, pics.height),
      pics.width,
      pics.height,
    );
    expect(pics.lastPicture).not.toBeNull();
    expect(maxDifference(pics.lastPicture as NonNullable<typeof pics.lastPicture>, expLast)).toBeLessThanOrEqual(2);
    // and it starts on the first frame
    const aRgb = decode(await png(512, 512));
    const expFirst = expectedYuv(
      resizeRgb({ width: 512, height: 512, data: aRgb.data as Uint8Array }, pics.width, pics.height),
      pics.width,
      pics.height,
    );
    expect(maxDifference(pics.firstPicture, expFirst)).toBeLessThanOrEqual(2);
  });

  it("extension keeps the source as it was, then new frames (or before, new frames then the source), and its audio", async () => {
    const { renderClip } = await import("../../src/sandbox-worker/encode/video");
    for (const direction of ["after", "before"]) {
      const card = detail.video_extend.models.find((m: any) => (allowed(m, "direction") as string[]).includes(direction));
      const source = Math.max(card.inputs[0].hard_constraints.min_duration_seconds ?? 1, 2);
      const durations: number[] = allowed(card, "duration").length ? allowed(card, "duration") : [source + 2];
      const duration = durations.find((d) => d > source) as number;
      // A real H.264 + MP3 clip the card accepts (320×180 is within every card's edge limits).
      const clip = await renderClip({
        width: 320,
        height: 180,
        seconds: source,
        fps: 24,
        seed: 5,
        container: "mp4",
        withAudio: true,
      });
      const done = await run("video_extend", {
        model: card.model,
        video: await artifactInput(t.tenant_id, clip.bytes, "video/mp4"),
        direction,
        instruction: "keep going",
        duration,
        resolution: allowed(card, "resolution")[0],
      });
      expect(done.output.provider).toMatchObject({ source_kept: true, audio: "padded_with_silence", direction });
      const out = await probe((await download(done.output.artifacts[0].url)).bytes);
      const src = await probe(clip.bytes);
      // Final duration as requested (to a frame), with the source's frames byte for byte at the start or the end.
      expect(out.info.duration / out.info.timescale).toBeCloseTo(duration, 1);
      expect(Math.abs(out.info.duration / out.info.timescale - duration)).toBeLessThanOrEqual(1 / 24);
      const before = src.samples(src.info.videoTracks[0]!.id);
      const after = out.samples(out.info.videoTracks[0]!.id);
      const kept = direction === "after" ? after.slice(0, before.length) : after.slice(after.length - before.length);
      expect(kept.map((x) => x.data)).toEqual(before.map((x) => x.data));
      expect(after.length).toBeGreaterThan(before.length);
      // The audio track is there, the source's frames in it, as long as the clip.
      const audio = out.info.audioTracks[0]!;
      expect(audio.movie_duration / audio.movie_timescale).toBeCloseTo(out.info.duration / out.info.timescale, 2);
      const srcAudio = src.samples(src.info.audioTracks[0]!.id).map((x) => x.data);
      const outAudio = out.samples(audio.id).map((x) => x.data);
      expect(
        direction === "after" ? outAudio.slice(0, srcAudio.length) : outAudio.slice(outAudio.length - srcAudio.length),
      ).toEqual(srcAudio);
      expect(done.output.artifacts[0]).toMatchObject({ width: 320, height: 180 });
      expect(done.usage.lines[0].meter).toBe(card.pricing.meter);
    }
  });

  it("extension of a source the simulator cannot read (no samples) is a new clip of the final duration, and says so", async () => {
    const card = detail.video_extend.models[0];
    const { mp4 } = await import("../helpers/media-fixtures");
    const source = Math.max(card.inputs[0].hard_constraints.min_duration_seconds ?? 1, 2);
    const durations: number[] = allowed(card, "duration").length ? allowed(card, "duration") : [source + 2];
    const duration = durations.find((d) => d > source) as number;
    const done = await run("video_extend", {
      model: card.model,
      video: await artifactInput(t.tenant_id, mp4(source), "video/mp4"),
      direction: allowed(card, "direction")[0] ?? "after",
      instruction: "keep going",
      duration,
      resolution: allowed(card, "resolution")[0],
    });
    expect(done.output.provider).toMatchObject({ source_kept: false, note: "the source has no H.264 video samples" });
    const p = await probe((await download(done.output.artifacts[0].url)).bytes);
    expect(p.info.duration / p.info.timescale).toBeCloseTo(duration, 2);
  });
});

async function firstAndLastPictures(bytes: Uint8Array) {
  const p = await probe(bytes);
  const track = p.info.videoTracks[0] as any;
  const samples = p.samples(track.id);
  const units = samples.map((s) => avccNalUnits(s.data));
  // SPS/PPS from the avcC box, via the first keyframe's stream parameters.
  const avcC = findBox(bytes, "avcC") as Uint8Array;
  const spsLen = ((avcC[6] as number) << 8) | (avcC[7] as number);
  const sps = parseSps(avcC.subarray(8, 8 + spsLen));
  const ppsStart = 8 + spsLen + 1;
  const ppsLen = ((avcC[ppsStart] as number) << 8) | (avcC[ppsStart + 1] as number);
  const pps = parsePps(avcC.subarray(ppsStart + 2, ppsStart + 2 + ppsLen));
  const idr = (nals: Uint8Array[]) => nals.find((n) => nalHeader(n).type === 5) as Uint8Array;
  const firstPicture = readPcmPicture(idr(units[0] as Uint8Array[]), sps, pps);
  const lastIdr = idr(units[units.length - 1] as Uint8Array[]);
  const lastPicture = lastIdr ? readPcmPicture(lastIdr, sps, pps) : null;
  return { firstPicture, lastPicture, width: track.video.width, height: track.video.height };
}

function findBox(bytes: Uint8Array, type: string): Uint8Array | null {
  const t = [...type].map((c) => c.charCodeAt(0));
  for (let i = 4; i < bytes.length - 4; i++) {
    if (bytes[i] === t[0] && bytes[i + 1] === t[1] && bytes[i + 2] === t[2] && bytes[i + 3] === t[3]) {
      const size =
        ((bytes[i - 4] as number) << 24) |
        ((bytes[i - 3] as number) << 16) |
        ((bytes[i - 2] as number) << 8) |
        (bytes[i - 1] as number);
      return bytes.subarray(i + 4, i - 4 + size);
    }
  }
  return null;
}

describe("audio", () => {
  it("music: songs in the card's format and count, instrumental or with vocals, audio_setting honoured", async () => {
    const a = detail.text_to_music.models.find((m: any) =>
      m.controls.some((c: any) => c.field.startsWith("model_options.family_a")),
    );
    const done = await run("text_to_music", { model: a.model, prompt: "calm piano", instrumental: true });
    const tracks = done.output.artifacts;
    expect(tracks.length).toBe(a.outputs.supported_counts?.[0] ?? 1);
    const meta = await parseBuffer((await download(tracks[0].url)).bytes);
    expect(meta.format.duration).toBeGreaterThan(3);
    const b = detail.text_to_music.models.find((m: any) =>
      m.controls.some((c: any) => c.field.startsWith("model_options.family_b")),
    );
    const rates = allowed(b, "model_options.family_b.audio_setting.sample_rate");
    const formats = allowed(b, "model_options.family_b.audio_setting.format");
    const format = formats.includes("wav") ? "wav" : formats[0];
    const rate = rates.includes(32000) ? 32000 : rates[0];
    const d2 = await run("text_to_music", {
      model: b.model,
      prompt: "upbeat pop",
      lyrics: "la la la, sing along",
      model_options: { family_b: { audio_setting: { format, sample_rate: rate } } },
    });
    const m2 = await parseBuffer((await download(d2.output.artifacts[0].url)).bytes);
    expect(m2.format.sampleRate).toBe(rate);
    expect(m2.format.container?.toLowerCase()).toContain(format === "wav" ? "wave" : format);
  });

  it("speech: duration follows the input length and speed, format and sample rate honoured", async () => {
    const card = detail.text_to_speech.models.find(
      (m: any) => allowed(m, "format").includes("wav") && allowed(m, "sample_rate").length > 0,
    );
    const voice = voices.find((v) => v.compatible_models.includes(card.model));
    const rate = allowed(card, "sample_rate")[0];
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(4);
    const slow = await run("text_to_speech", {
      model: card.model,
      voice: voice.voice_id,
      input: text,
      format: "wav",
      sample_rate: rate,
      speed: 1,
    });
    const fast = await run("text_to_speech", {
      model: card.model,
      voice: voice.voice_id,
      input: text,
      format: "wav",
      sample_rate: rate,
      speed: 2,
    });
    const ms = await parseBuffer((await download(slow.output.artifacts[0].url)).bytes);
    const mf = await parseBuffer((await download(fast.output.artifacts[0].url)).bytes);
    expect(ms.format.sampleRate).toBe(rate);
    expect(ms.format.duration).toBeCloseTo([...text].length / 15, 0);
    expect((mf.format.duration as number) / (ms.format.duration as number)).toBeCloseTo(0.5, 1);
    expect(slow.usage).toMatchObject({ characters: [...text].length });
    for (const format of allowed(card, "format").filter((f: string) => f === "mp3" || f === "flac")) {
      const d = await run("text_to_speech", { model: card.model, voice: voice.voice_id, input: "Hello world.", format });
      const m = await parseBuffer((await download(d.output.artifacts[0].url)).bytes);
      expect(m.format.duration).toBeGreaterThan(0.3);
    }
  });
});

describe("images", () => {
  it("JPEG where the card's output format says so, PNG otherwise, at the card's exact dimensions", async () => {
    for (const format of ["image/jpeg", "image/png"]) {
      const card = detail.text_to_image.models.find((m: any) => m.outputs.format === format && m.canvas.presets["1K"]?.["1:1"]);
      if (!card) continue;
      const done = await run("text_to_image", {
        model: card.model,
        prompt: "a kite",
        canvas: { type: "preset", tier: "1K", aspect: "1:1" },
      });
      const { bytes, type } = await download(done.output.images[0].url);
      expect(type).toBe(format);
      const img = format === "image/jpeg" ? jpeg.decode(bytes) : decode(bytes);
      expect([img.width, img.height]).toEqual(card.canvas.presets["1K"]["1:1"]);
    }
  });

  it("an edit region changes only its rectangle of the base image", async () => {
    const card =
      detail.image_edit.models.find(
        (m: any) => m.outputs.format === "image/png" && m.controls.some((c: any) => c.field === "edit_regions"),
      ) ?? detail.image_edit.models.find((m: any) => m.controls.some((c: any) => c.field === "edit_regions"));
    const size = card.canvas.presets["1K"]["1:1"] as [number, number];
    const base = await pngInput(512, 512);
    const done = await run("image_edit", {
      model: card.model,
      prompt: "paint the corner red",
      images: [base],
      canvas: { type: "preset", tier: "1K", aspect: "1:1" },
      edit_regions: [{ image_index: 0, x: 0, y: 0, width: 0.5, height: 0.5 }],
    });
    const { bytes } = await download(done.output.images[0].url);
    const out = card.outputs.format === "image/jpeg" ? jpeg.decode(bytes) : decode(bytes);
    const ch = (out.data.length / (out.width * out.height)) | 0;
    const src = decode(await png(512, 512));
    // Compare with the base resized the same way, well inside and well outside the region.
    const at = (x: number, y: number) => Array.from(out.data.subarray((y * out.width + x) * ch, (y * out.width + x) * ch + 3));
    const baseAt = (x: number, y: number) => {
      const sx = Math.floor((x * 512) / size[0]);
      const sy = Math.floor((y * 512) / size[1]);
      return Array.from(src.data.subarray((sy * 512 + sx) * 3, (sy * 512 + sx) * 3 + 3) as Uint8Array);
    };
    const diff = (a: number[], b: number[]) => Math.max(...a.map((v, i) => Math.abs(v - (b[i] as number))));
    const tol = card.outputs.format === "image/jpeg" ? 24 : 0;
    expect(diff(at(size[0] - 10, size[1] - 10), baseAt(size[0] - 10, size[1] - 10))).toBeLessThanOrEqual(tol);
    expect(diff(at(10, 10), baseAt(10, 10))).toBeGreaterThan(tol);
  });

  it("image-to-image derives from the input and uses the palette", async () => {
    const card = detail.image_to_image.models.find((m: any) => m.controls.some((c: any) => c.field === "palette"));
    if (!card) return;
    const palette = [
      { color: "#ff0000", weight: 0.5 },
      { color: "#00ff00", weight: 0.3 },
      { color: "#0000ff", weight: 0.2 },
    ];
    const done = await run("image_to_image", {
      model: card.model,
      prompt: "recolour",
      images: [await pngInput(512, 512)],
      palette,
      canvas: { type: "preset", tier: "1K", aspect: "1:1" },
    });
    expect(done.output.provider.derived_from_input).toBe(true);
  });
});

describe("text outputs", () => {
  it("image understanding reads the actual pixels", async () => {
    const done = await run("image_to_text", {
      model: detail.image_to_text.models[0].model,
      prompt: "What colours?",
      images: [await pngInput(400, 300)],
    });
    expect(done.output.text).toContain("400×300");
    expect(done.output.text).toMatch(/#[0-9a-f]{6}/);
    expect(done.usage.input_tokens).toBeGreaterThan(1000);
    expect(done.usage.output_tokens).toBeGreaterThan(0);
    expect(done.usage.lines.map((l: any) => l.meter).sort()).toContain("output_tokens");
  });

  it("prompt enhancement rewrites and expands, billed by tokens", async () => {
    const done = await run("video_prompt_enhance", { prompt: "a fox in snow" });
    expect(done.output.text.length).toBeGreaterThan(60);
    expect(done.output.text.toLowerCase()).toContain("fox");
    expect(Number(done.usage.credits)).toBeGreaterThan(0);
    expect(Number(done.billing.net_charged_credits)).toBeLessThanOrEqual(Number(done.billing.charged_credits));
  });

  it("video understanding observes each sampled second", async () => {
    const { mp4 } = await import("../helpers/media-fixtures");
    const card = detail.video_to_text.models[0];
    const done = await run("video_to_text", {
      model: card.model,
      prompt: "what happens?",
      video: await artifactInput(t.tenant_id, mp4(4, 640, 360), "video/mp4"),
      response_format: "json",
    });
    const parsed = JSON.parse(done.output.text);
    expect(parsed.observations).toHaveLength(4);
    expect(done.usage.input_video_seconds).toBe(4);
  });
});
