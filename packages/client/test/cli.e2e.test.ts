/**
 * The command line as a user runs it: the built `dist/cli.js` as a subprocess (stdout a pipe, not
 * a terminal) against the local Worker under `wrangler dev`, with a tenant and key made through
 * the operator API. Also: a standard generator (openapi-typescript) reads the served
 * /openapi.json without a warning and gives exactly the committed types.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type LocalServer, startLocalServer } from "../../../scripts/lib/local-server.ts";
import { probeMedia } from "../../../src/media/probe/index.ts";
import { ensureBuilt } from "./built.js";
import { PLACEHOLDER, quickStart } from "./readme.js";

const root = new URL("../../../", import.meta.url).pathname;
const pkg = join(root, "packages/client");
/** What `npx media-api` runs: the committed launcher, which loads dist/cli.js. */
const bin = join(pkg, "bin/media-api.js");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let server: LocalServer;
let base: string;
let work: string;

function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: work,
      env: { PATH: process.env.PATH, MEDIA_API_BASE_URL: base, MEDIA_API_KEY: server.apiKey, ...env } as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function probe(path: string) {
  return probeMedia(new Uint8Array(readFileSync(path)), "/file");
}

/** The saved paths a human-readable run printed. */
function savedPaths(stdout: string): string[] {
  return [...stdout.matchAll(/^\s+saved (\S+)/gm)].map((m) => join(work, m[1] as string));
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  work = mkdtempSync(join(tmpdir(), "media-api-cli-"));
  // The sandbox takes 40% of its usual time: long enough for progress to show, short for a test.
  [server] = await Promise.all([
    startLocalServer({ port, vars: { SANDBOX_LATENCY_SCALE: "0.4", PUBLIC_BASE_URL: base } }),
    ensureBuilt(),
  ]);
});

afterAll(() => server?.stop());

// Each case runs a few commands against one server (and a task or two of a few seconds each).
describe("media-api against the local Worker", { timeout: 120_000 }, () => {
  it("shows the balance and the models, for people and for scripts", async () => {
    const human = await cli(["balance"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^available \d+/);
    const balance = JSON.parse((await cli(["balance", "--json"])).stdout);
    expect(balance).toMatchObject({ object: "balance", available_credits: expect.any(String) });
    const models = JSON.parse((await cli(["models", "--json"])).stdout);
    expect(models.data.some((m: { capabilities: string[] }) => m.capabilities.includes("text_to_image"))).toBe(true);
    const voices = JSON.parse((await cli(["voices", "--language", "en", "--json"])).stdout);
    expect(voices.data.length).toBeGreaterThan(0);
  });

  let imageTask = "";
  it("makes images, saves every output and prints where, with a signed URL that needs no key", async () => {
    const run = await cli([
      "generate",
      "text_to_image",
      "--prompt",
      "a red fox in the snow",
      "--count",
      "2",
      "--canvas.type",
      "preset",
      "--canvas.tier",
      "1K",
      "--canvas.aspect",
      "1:1",
      "--out",
      "images",
    ]);
    expect(run.code, run.stderr).toBe(0);
    imageTask = /task (task_[0-9a-f]+)/.exec(run.stdout)?.[1] ?? "";
    const paths = savedPaths(run.stdout);
    expect(paths.map((p) => p.slice(work.length + 1))).toEqual([`images/${imageTask}-0.png`, `images/${imageTask}-1.png`]);
    for (const p of paths) expect(probe(p)).toMatchObject({ kind: "image", mime: "image/png", width: 1024, height: 1024 });
    const signed = /^\s+(http\S+\/files\/\S+)/m.exec(run.stdout)?.[1];
    expect(signed).toBeDefined();
    const res = await fetch(signed as string);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(paths[0] as string))).toBe(true);
  });

  it("runs the README's quick start as written: an image, a video, then that video uploaded and extended", async () => {
    const [image, video, extend] = quickStart();
    expect(extend?.some((w) => PLACEHOLDER.test(w))).toBe(true);
    const drawn = await cli(image as string[]);
    expect(drawn.code, drawn.stderr).toBe(0);
    expect(probe(savedPaths(drawn.stdout)[0] as string)).toMatchObject({ kind: "image", mime: "image/png" });

    const made = await cli(video as string[]);
    expect(made.code, made.stderr).toBe(0);
    const videoFile = savedPaths(made.stdout)[0] as string;
    expect(probe(videoFile)).toMatchObject({ kind: "video", mime: "video/mp4", duration_seconds: 4 });

    const uploaded = await cli(["upload", videoFile, "--json"]);
    expect(uploaded.code, uploaded.stderr).toBe(0);
    expect(JSON.parse(uploaded.stdout)).toMatchObject({ object: "artifact", kind: "video", source: "upload" });

    // The example's placeholder is the file the command before it saved.
    const extended = await cli((extend as string[]).map((w) => (PLACEHOLDER.test(w) ? videoFile.slice(work.length + 1) : w)));
    expect(extended.code, extended.stderr).toBe(0);
    expect(extended.stdout).toMatch(/^uploaded \S+ → art_\w+ \(video\/mp4/m);
    const task = /task (task_[0-9a-f]+)/.exec(extended.stdout)?.[1] as string;
    const progress = extended.stdout.split("\n").filter((l) => l.startsWith(`${task}  `));
    // One plain line per change (no carriage returns off a terminal), the stage among them.
    expect(extended.stdout).not.toContain("\r");
    expect(progress.some((l) => /\brunning\s+\d+%\s+\w+/.test(l))).toBe(true);
    expect(progress[progress.length - 1]).toMatch(/succeeded\s+100%/);
    const [result] = savedPaths(extended.stdout);
    expect(probe(result as string)).toMatchObject({ kind: "video", duration_seconds: 8 });

    const got = await cli(["tasks", "get", task, "--json"]);
    expect(JSON.parse(got.stdout)).toMatchObject({ task_id: task, status: "succeeded", capability: "video_extend" });
    const shown = await cli(["tasks", "get", task]);
    expect(shown.stdout).toMatch(/^status\s+succeeded/m);
  });

  it("prints only JSON on stdout with --json, progress going to stderr", async () => {
    const run = await cli([
      "generate",
      "text_to_speech",
      "--input",
      "hello there",
      "--voice",
      "English_radiant_girl",
      "--json",
      "--out",
      "speech",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.task.status).toBe("succeeded");
    expect(out.files).toHaveLength(1);
    expect(probe(join(work, out.files[0].path))).toMatchObject({ kind: "audio" });
    expect(run.stderr).toMatch(/succeeded\s+100%/);
    const list = JSON.parse((await cli(["tasks", "list", "--limit", "2", "--json"])).stdout);
    expect(list.data).toHaveLength(2);
    const usage = JSON.parse((await cli(["usage", "--json"])).stdout);
    expect(usage.object).toBe("usage");
  });

  it("quotes before spending: with no terminal to ask it refuses unless --yes, then creates under the quote", async () => {
    const args = ["generate", "text_to_image", "--prompt", "a quoted owl", "--quote", "--no-wait"];
    const refused = await cli(args);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/quote quo_\S+ · model \S+ · at most [\d.]+ credits/);
    expect(refused.stderr).toContain("--yes");
    const agreed = await cli([...args, "--yes", "--json"]);
    expect(agreed.code, agreed.stderr).toBe(0);
    const quote = JSON.parse(agreed.stderr);
    const task = JSON.parse(agreed.stdout);
    expect(quote.object).toBe("quote");
    expect(task.resolved_model).toBe(quote.resolved_model);
    expect(task.billing.charged_credits).toBe(quote.credits);
  });

  it("tries --models in order within the provider preferences, and says which served and which were passed over", async () => {
    const run = await cli([
      "generate",
      "text_to_image",
      "--prompt",
      "a harbour at dusk",
      "--models",
      "flux-2-pro,gpt-image-2",
      "--provider-order",
      "sandbox",
      "--sort",
      "price",
      "--metadata.sandbox_fault",
      "provider_error",
      "--metadata.sandbox_fault_model",
      "flux-2-pro",
      "--out",
      "fallbacks",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^task task_\S+ queued · models flux-2-pro, gpt-image-2 → flux-2-pro$/m);
    expect(run.stdout).toMatch(/✓ task_\S+ succeeded .*· model gpt-image-2 · /);
    expect(run.stdout).toMatch(/^ {2}passed over flux-2-pro — upstream_failed/m);
    const task = /task (task_[0-9a-f]+)/.exec(run.stdout)?.[1] as string;
    const got = JSON.parse((await cli(["tasks", "get", task, "--json"])).stdout);
    expect(got.models).toEqual(["flux-2-pro", "gpt-image-2"]);
    expect(got.resolved_model).toBe("gpt-image-2");
    expect(got.model_fallbacks).toMatchObject([{ model: "flux-2-pro", reason: "upstream_failed" }]);
    // Both at once: a usage error, and nothing sent.
    const both = await cli(["generate", "text_to_image", "--prompt", "x", "--model", "flux-2-pro", "--models", "gpt-image-2"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--model and --models cannot be given together");
    // A provider this service does not know: the API's refusal, pointing at it.
    const unknown = await cli(["generate", "text_to_image", "--prompt", "x", "--provider-order", "sandbox,nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/code: invalid_request \(param \/provider\/order\/1, HTTP 422/);
  });

  it("cancels a task it did not wait for, and reports the ending of a task that did not succeed", async () => {
    const started = await cli(["generate", "text_to_video", "--prompt", "slow clouds", "--no-wait", "--json"]);
    expect(started.code, started.stderr).toBe(0);
    const task = JSON.parse(started.stdout).task_id as string;
    const canceled = await cli(["tasks", "cancel", task, "--json"]);
    expect(canceled.code, canceled.stderr).toBe(0);
    expect(JSON.parse(canceled.stdout).status).toBe("canceled");
    const waited = await cli(["tasks", "wait", task]);
    expect(waited.code).toBe(1);
    expect(waited.stderr).toContain(`task ${task} canceled`);
  });

  it("reads the status without a key, sends key commands, and speaks with the model's default voice", async () => {
    const status = await cli(["status", "--json"], { MEDIA_API_KEY: undefined });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: expect.any(String), providers: expect.any(Array) });
    // The local key holds no `keys:manage`: the request reaches the API, and its refusal is reported.
    const keys = await cli(["keys", "create", "--name", "cli-e2e", "--permissions", "tasks:read"]);
    expect(keys.code).toBe(1);
    expect(keys.stderr).toContain("keys:manage");
    const spoken = await cli(["generate", "text_to_speech", "--prompt", "hello", "--no-wait", "--json"]);
    expect(spoken.code, spoken.stderr).toBe(0);
    expect(spoken.stderr).toMatch(/^voice \S+ \(.+\): the default voice of the live speech models/m);
    expect(JSON.parse(spoken.stdout)).toMatchObject({ capability: "text_to_speech" });
  });

  it("exits 1 with the error's code on an API error, and 2 on a usage error", async () => {
    const bad = await cli(["generate", "text_to_image", "--prompt", "x", "--model", "no-such-model"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/code: unsupported_model \(param \/model, HTTP 400/);
    const badJson = await cli(["generate", "text_to_image", "--prompt", "x", "--model", "no-such-model", "--json"]);
    expect(JSON.parse(badJson.stdout).error.code).toBe("unsupported_model");
    const missing = await cli(["tasks", "get", `task_${"0".repeat(64)}`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("task_not_found");
    const badKey = await cli(["balance"], { MEDIA_API_KEY: `sk_us_live_${"0123456789abcdefghij".repeat(2)}abc` });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toContain("invalid_api_key");

    for (const args of [
      ["generate", "no_such_capability", "--prompt", "x"],
      ["tasks"],
      ["generate", "text_to_image", "--colour", "red"],
      ["frobnicate"],
    ]) {
      const run = await cli(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("media-api --help");
    }
    const noKey = await cli(["balance"], { MEDIA_API_KEY: undefined });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("MEDIA_API_KEY");
    expect((await cli(["--help"])).code).toBe(0);
  });
});

describe("the served OpenAPI document", { timeout: 120_000 }, () => {
  it("gives a standard generator no warning, and exactly the committed types", async () => {
    const out = join(work, "served-openapi.ts");
    const { stderr } = await promisify(execFile)(
      process.execPath,
      [join(pkg, "node_modules/openapi-typescript/bin/cli.js"), `${base}/openapi.json`, "-o", out],
      { cwd: work },
    );
    expect(stderr).not.toMatch(/⚠|warn/i);
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const missing = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => !op.operationId)
        .map(([m]) => `${m} ${p}`),
    );
    expect(missing).toEqual([]);
    const committed = readFileSync(join(pkg, "src/generated/openapi.ts"), "utf8");
    expect(
      readFileSync(out, "utf8") === committed,
      "the served document differs from the committed types: run `npm run client:generate`",
    ).toBe(true);
  });
});
