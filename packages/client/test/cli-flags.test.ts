/**
 * `media-api generate`'s flags against the generated operation table, through the whole command
 * on a fake fetch: no request field is named like one of the command's own options; for every
 * operation, an invocation that sets all its required fields (as field flags, and through --set
 * and --media) sends exactly that body; the README's examples parse and send what they say.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GENERATE_OPTIONS, GLOBAL_OPTIONS, parseArgs, SWITCHES } from "../src/cli/args.js";
import { runCli } from "../src/cli/main.js";
import { operationForCapability } from "../src/client.js";
import { OPERATIONS } from "../src/generated/operations.js";
import type { MediaField, OperationRow } from "../src/operation-row.js";
import { envelope, fakeFetch, json, type Seen } from "./fake-fetch.js";
import { PLACEHOLDER, quickStart, readmeCommands } from "./readme.js";

const BASE = "https://api.example";
const ROWS = (Object.values(OPERATIONS) as OperationRow[]).filter((r) => r.capability && r.fields);
const OWN = new Set<string>([...GLOBAL_OPTIONS, ...GENERATE_OPTIONS, ...SWITCHES]);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  seen: Seen[];
}

/** Runs the command on a fake API that admits any task and takes any upload. */
async function run(argv: string[]): Promise<Outcome> {
  const routes: Record<string, () => Response> = {
    "POST /v1/uploads": () =>
      json(201, { object: "artifact", artifact_id: "art_uploaded", kind: "video", content_type: "video/mp4", bytes: 4 }),
  };
  for (const row of ROWS) routes[`${row.method} ${row.path}`] = () => json(202, envelope("queued"));
  routes["POST /v1/quotes"] = () =>
    json(201, {
      object: "quote",
      quote_id: "quo_1",
      resolved_model: "m",
      credits: "1",
      lines: [],
      expires_at: "",
      created_at: "",
    });
  const fake = fakeFetch(routes);
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { MEDIA_API_KEY: "sk_us_test_key", MEDIA_API_BASE_URL: BASE },
    fetch: fake.fetch,
  });
  return { code, stdout, stderr, seen: fake.seen };
}

/** The body the command sent to create the task. */
function sentBody(outcome: Outcome, row: OperationRow): Record<string, unknown> {
  expect(outcome.code, outcome.stderr).toBe(0);
  const create = outcome.seen.filter((s) => s.method === row.method && s.url.pathname === row.path);
  expect(create).toHaveLength(1);
  return JSON.parse(create[0]?.body as string);
}

const EXTENSION = { image: "png", video: "mp4", audio: "mp3" } as const;

/** A value for a required field: the words to write, and the JSON it must become. */
function valueFor(row: OperationRow, field: string): { media?: MediaField; word: string | true; sent: unknown } {
  const media = row.media?.find((m) => m.field === field);
  if (media) {
    const kind = (media.kinds?.[0] ??
      (/audio/.test(field) ? "audio" : /video/.test(field) ? "video" : "image")) as keyof typeof EXTENSION;
    const ref = { type: "url", url: `https://media.example/${field}.${EXTENSION[kind]}` };
    const sent = media.shape === "one" ? ref : media.shape === "many" ? [ref] : [{ kind, media: ref }];
    return { media, word: ref.url, sent };
  }
  const type = row.fields?.[field]?.[0];
  switch (type) {
    case "integer":
      return { word: "3", sent: 3 };
    case "number":
      return { word: "1.5", sent: 1.5 };
    case "boolean":
      return { word: true, sent: true };
    case "object":
      return { word: '{"k":"v"}', sent: { k: "v" } };
    case "array":
      return { word: '["a"]', sent: ["a"] };
    default:
      return { word: `the ${field} of a test`, sent: `the ${field} of a test` };
  }
}

describe("flags and fields", () => {
  it("no field of any operation is named like one of the command's own options", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(13);
    expect(OWN.has("media") && OWN.has("set") && OWN.has("body")).toBe(true);
    const collisions = ROWS.flatMap((row) =>
      Object.keys(row.fields ?? {})
        .filter((f) => !f.includes("."))
        .flatMap((f) => [f, f.replaceAll("_", "-")].flatMap((name) => [name, `no-${name}`]))
        .filter((name) => OWN.has(name))
        .map((name) => `${row.capability}: --${name}`),
    );
    expect(collisions).toEqual([]);
  });

  it("each of generate's own options is taken by the command, never as a field", async () => {
    const values: Record<string, string[]> = {
      body: ["--body", '{"prompt":"x"}'],
      set: ["--set", "seed=1"],
      media: ["--media", "https://media.example/b.png"],
      out: ["--out", tmpdir()],
      "no-wait": ["--no-wait"],
      timeout: ["--timeout", "5"],
      "idempotency-key": ["--idempotency-key", "k-1"],
      quote: ["--quote", "--yes"],
      "ask-above": ["--quote", "--ask-above", "1000"],
      yes: ["--quote", "--yes"],
      "retention-days": ["--retention-days", "7"],
      "provider-order": ["--provider-order", "sandbox,fal"],
      "provider-only": ["--provider-only", "sandbox"],
      "provider-ignore": ["--provider-ignore", "fal"],
      sort: ["--sort", "price"],
      "no-fallbacks": ["--no-fallbacks"],
    };
    const base = ["generate", "image_to_image", "--prompt", "x", "--images", "https://media.example/a.png"];
    for (const option of GENERATE_OPTIONS) {
      expect(values[option], `a value for --${option}`).toBeDefined();
      const outcome = await run([...base, ...(values[option] ?? []), "--no-wait", "--json"]);
      expect(outcome.code, `--${option}: ${outcome.stderr}`).toBe(0);
    }
  });

  it("text_to_speech's text is its --input (and --prompt says it too)", async () => {
    const row = OPERATIONS.createSpeech as OperationRow;
    const body = sentBody(await run(["generate", "text_to_speech", "--voice", "v1", "--input", "hello", "--no-wait"]), row);
    expect(body).toEqual({ voice: "v1", input: "hello" });
    expect(sentBody(await run(["generate", "text_to_speech", "--voice", "v1", "--prompt", "hi", "--no-wait"]), row)).toEqual({
      voice: "v1",
      input: "hi",
    });
  });

  it("--set sets fields, nested by dots, as their JSON types", async () => {
    const row = OPERATIONS[operationForCapability("text_to_image")!] as OperationRow;
    const argv = ["generate", "text_to_image", "--set", "prompt=a fox", "--set", "count=2", "--set", "canvas.tier=1K"];
    expect(sentBody(await run([...argv, "--no-wait"]), row)).toEqual({ prompt: "a fox", count: 2, canvas: { tier: "1K" } });
  });

  it("a media file given as --input where no field is named so points at --media", async () => {
    const outcome = await run(["generate", "image_to_video", "--input", "https://media.example/a.png", "--no-wait"]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain(
      "image_to_video has no field 'input' (media files, URLs and artifacts are given with --media)",
    );
    expect(outcome.seen).toEqual([]);
  });
});

describe("every operation's required fields through the command", () => {
  for (const row of ROWS) {
    const capability = row.capability as string;
    const required = row.required ?? [];
    const expected = Object.fromEntries(required.map((f) => [f, valueFor(row, f).sent]));

    it(`${capability}: each as its own flag`, async () => {
      const argv = required.flatMap((f) => {
        const { word } = valueFor(row, f);
        return word === true ? [`--${f}`] : [`--${f}`, word];
      });
      expect(sentBody(await run(["generate", capability, ...argv, "--no-wait", "--json"]), row)).toEqual(expected);
    });

    it(`${capability}: through --set and --media`, async () => {
      const argv = required.flatMap((f) => {
        const { media, word } = valueFor(row, f);
        if (media) return ["--media", `${media.shape === "reference" ? (media.kinds?.[0] ?? "image") : f}=${word}`];
        return ["--set", `${f}=${word === true ? "true" : word}`];
      });
      expect(sentBody(await run(["generate", capability, ...argv, "--no-wait"]), row)).toEqual(expected);
    });
  }
});

describe("the README's examples", () => {
  const commands = readmeCommands();

  it("the runnable generate examples send the body they write", async () => {
    const runnable = quickStart().filter((argv) => argv[0] === "generate");
    expect(runnable.length).toBeGreaterThanOrEqual(3);
    const dir = mkdtempSync(join(tmpdir(), "media-api-readme-"));
    const video = join(dir, "task_0-0.mp4");
    writeFileSync(video, Uint8Array.from([0, 0, 0, 24, 102, 116, 121, 112, 105, 115, 111, 109]));
    for (const written of runnable) {
      const argv = written.map((w) => (PLACEHOLDER.test(w) ? video : w));
      const line = written.join(" ");
      const capability = argv[1] as string;
      const row = OPERATIONS[operationForCapability(capability)!] as OperationRow;
      const outcome = await run([...argv, "--no-wait", "--json"]);
      const body = sentBody(outcome, row);
      // Every field the line names is in the body the command sent.
      const named = [...parseArgs(argv).options.keys()].filter((o) => !OWN.has(o)).map((o) => o.split(".")[0]);
      for (const field of named) {
        expect(body, `${line}: ${field}`).toHaveProperty(field as string);
        // A media field's file is uploaded and sent as the artifact it became.
        if (row.media?.some((m) => m.field === field))
          expect(body[field as string]).toEqual({ type: "artifact", artifact_id: "art_uploaded" });
      }
    }
  });

  it("every option the synopses name is one the command takes", () => {
    const synopses = commands.filter((c) => c.startsWith("media-api "));
    expect(synopses.length).toBeGreaterThanOrEqual(3);
    const fields = new Set(ROWS.flatMap((r) => Object.keys(r.fields ?? {}).map((f) => f.split(".")[0] as string)));
    // A query parameter is taken as written or with dashes (`--task_id`, `--task-id`).
    const queries = new Set(
      (Object.values(OPERATIONS) as OperationRow[]).flatMap((r) => r.queryParams.flatMap((q) => [q, q.replaceAll("_", "-")])),
    );
    const unknown = synopses
      .flatMap((line) => [...line.matchAll(/--([a-z][a-z_-]*)/g)].map((m) => m[1] as string))
      .filter((o) => !OWN.has(o) && !fields.has(o) && !queries.has(o));
    expect(unknown).toEqual([]);
  });
});
