import { describe, expect, it } from "vitest";
import { Options, parseArgs, UsageError } from "../src/cli/args.js";
import { applyFields, assignInputs, placeInputs, splitInput } from "../src/cli/body.js";
import { operationForCapability } from "../src/client.js";
import { OPERATIONS } from "../src/generated/operations.js";
import type { OperationRow } from "../src/operation-row.js";

const rowOf = (capability: string) => OPERATIONS[operationForCapability(capability)!] as OperationRow;

function bodyFrom(capability: string, argv: string[]) {
  const opts = new Options(parseArgs(argv));
  const sets = opts.strings("set");
  const body: Record<string, unknown> = {};
  applyFields(body, rowOf(capability), opts.rest(), sets, capability);
  return body;
}

describe("command-line words", () => {
  it("reads values, switches, --no-, --x=y, repeats and --", () => {
    const p = parseArgs([
      "generate",
      "--count",
      "2",
      "--json",
      "--no-watermark",
      "--pitch",
      "-0.5",
      "--seed=7",
      "--input",
      "a",
      "--input",
      "b",
      "--flag",
      "--",
      "--rest",
    ]);
    expect(p.positionals).toEqual(["generate", "--rest"]);
    expect(Object.fromEntries(p.options)).toEqual({
      count: ["2"],
      json: [true],
      watermark: [false],
      pitch: ["-0.5"],
      seed: ["7"],
      input: ["a", "b"],
      flag: [true],
    });
  });

  it("refuses an option nobody reads, and a value given to a switch", () => {
    const opts = new Options(parseArgs(["--json=yes", "--bogus", "1"]));
    expect(() => opts.flag("json")).toThrow(UsageError);
    expect(() => opts.done("balance")).toThrow("unknown option for balance: --bogus");
  });
});

describe("the request body from flags", () => {
  it("reads each value as the JSON type of its field, nested by dots", () => {
    const body = bodyFrom("text_to_image", [
      "--count",
      "2",
      "--canvas.type",
      "preset",
      "--canvas.tier",
      "1K",
      "--canvas.aspect",
      "1:1",
      "--enhance_prompt",
      "null",
      "--reasoning",
      "true",
      "--metadata.run",
      "42",
      "--set",
      "seed=7",
    ]);
    expect(body).toEqual({
      count: 2,
      canvas: { type: "preset", tier: "1K", aspect: "1:1" },
      enhance_prompt: null,
      reasoning: true,
      // metadata values are strings, whatever they look like
      metadata: { run: "42" },
      seed: 7,
    });
  });

  it("takes kebab-case for snake_case fields, bare flags as true, --no- as false, and JSON for lists", () => {
    const body = bodyFrom("text_to_video", [
      "--generate-audio",
      "--no-watermark",
      "--duration",
      "auto",
      "--aspect_ratio",
      "16:9",
    ]);
    expect(body).toEqual({ generate_audio: true, watermark: false, duration: "auto", aspect_ratio: "16:9" });
    expect(bodyFrom("text_to_image", ["--palette", '[{"color":"#ff0000","weight":1}]'])).toEqual({
      palette: [{ color: "#ff0000", weight: 1 }],
    });
    // speech: a number field, a free-form map
    expect(bodyFrom("text_to_speech", ["--speed", "1.25", "--model_options.style", "3"])).toEqual({
      speed: 1.25,
      model_options: { style: 3 },
    });
  });

  it("refuses a field the operation does not have, and a value-less flag for a non-boolean", () => {
    expect(() => bodyFrom("text_to_image", ["--duration", "5"])).toThrow(/text_to_image has no field 'duration'/);
    expect(() => bodyFrom("text_to_image", ["--count"])).toThrow(/--count needs a value/);
    expect(() => bodyFrom("text_to_image", ["--palette", "[oops"])).toThrow(/not valid JSON/);
  });
});

describe("media inputs", () => {
  const place = (capability: string, inputs: { raw: string; kind?: "image" | "video" | "audio" }[]) => {
    const row = rowOf(capability);
    const specs = inputs.map((i) => splitInput(row, i.raw));
    const kinds = inputs.map((i, n) => i.kind ?? (["image", "video", "audio"] as const).find((k) => k === specs[n]?.target));
    const assignments = assignInputs(
      row,
      specs.map((s, n) => ({ target: s.target, kind: kinds[n] })),
      capability,
    );
    const body: Record<string, unknown> = {};
    placeInputs(
      body,
      assignments,
      specs.map((s) => ({ type: "url", url: s.value })),
    );
    return body;
  };

  it("fills the fields of the operation by kind and in order", () => {
    expect(place("video_extend", [{ raw: "https://x/a.mp4", kind: "video" }])).toEqual({
      video: { type: "url", url: "https://x/a.mp4" },
    });
    // once the source video is placed, more media are the extension's references
    expect(
      place("video_extend", [
        { raw: "v", kind: "video" },
        { raw: "i", kind: "image" },
      ]),
    ).toEqual({
      video: { type: "url", url: "v" },
      references: [{ kind: "image", media: { type: "url", url: "i" } }],
    });
    expect(
      place("frames_to_video", [
        { raw: "a", kind: "image" },
        { raw: "b", kind: "image" },
        { raw: "c", kind: "audio" },
      ]),
    ).toEqual({
      first_frame: { type: "url", url: "a" },
      last_frame: { type: "url", url: "b" },
      driving_audio: { type: "url", url: "c" },
    });
    expect(
      place("image_edit", [
        { raw: "a", kind: "image" },
        { raw: "b", kind: "image" },
      ]),
    ).toEqual({
      images: [
        { type: "url", url: "a" },
        { type: "url", url: "b" },
      ],
    });
    expect(
      place("image_to_video", [
        { raw: "p", kind: "image" },
        { raw: "s", kind: "audio" },
      ]),
    ).toEqual({
      image: { type: "url", url: "p" },
      audio: { type: "url", url: "s" },
    });
  });

  it("takes a named field, and references with their kind", () => {
    expect(
      place("frames_to_video", [
        { raw: "last_frame=b", kind: "image" },
        { raw: "a", kind: "image" },
      ]),
    ).toEqual({
      last_frame: { type: "url", url: "b" },
      first_frame: { type: "url", url: "a" },
    });
    expect(place("reference_to_video", [{ raw: "a.png", kind: "image" }, { raw: "video=https://x/clip" }])).toEqual({
      references: [
        { kind: "image", media: { type: "url", url: "a.png" } },
        { kind: "video", media: { type: "url", url: "https://x/clip" } },
      ],
    });
  });

  it("refuses inputs that have nowhere to go", () => {
    expect(() => place("text_to_image", [{ raw: "a", kind: "image" }])).toThrow(/takes no media inputs/);
    expect(() =>
      place("image_to_video", [
        { raw: "a", kind: "image" },
        { raw: "b", kind: "image" },
      ]),
    ).toThrow(/image_to_video has no free media field for a image input/);
    expect(() => place("image_to_video", [{ raw: "image=a" }, { raw: "image=b" }])).toThrow(/image takes one input/);
    expect(() => place("image_to_video", [{ raw: "a", kind: "video" }])).toThrow(/no free media field for a video input/);
    expect(() => place("reference_to_video", [{ raw: "https://x/unknown" }])).toThrow(/cannot tell what kind/);
  });
});
