/**
 * `media-api generate`'s routing flags on a fake API: `--models` (the fallback list, instead of
 * `--model`), `--provider-order|only|ignore`, `--sort` and `--no-fallbacks` (the `provider`
 * preferences) in the body of the create and of the quote; the usage errors, before any call;
 * the model that served and those passed over in the outcome.
 */
import { describe, expect, it } from "vitest";
import { envelope, json, runCliOn } from "./fake-fetch.js";

const QUOTE = {
  object: "quote",
  quote_id: "quo_1",
  resolved_model: "flux-2-pro",
  credits: "0",
  lines: [],
  expires_at: "",
  created_at: "",
};

function run(argv: string[], task: Record<string, unknown> = envelope("queued")) {
  return runCliOn(["generate", "text_to_image", "--prompt", "a kite", ...argv], {
    "POST /v1/images/generations": () => json(202, task),
    "GET /v1/tasks/task_1": () => json(200, task),
    "POST /v1/quotes": () => json(201, QUOTE),
  });
}

function bodyOf(seen: { method: string; url: URL; body: string | undefined }[], path: string) {
  const sent = seen.filter((s) => s.method === "POST" && s.url.pathname === path);
  expect(sent).toHaveLength(1);
  return JSON.parse(sent[0]?.body as string);
}

describe("routing flags build the body", () => {
  it("--models is the fallback list, comma-separated (or repeated, or JSON), and no model is sent", async () => {
    for (const words of [
      ["--models", "flux-2-pro,gpt-image-2, flux-2-max"],
      ["--models", "flux-2-pro", "--models", "gpt-image-2,flux-2-max"],
      ["--models", '["flux-2-pro","gpt-image-2","flux-2-max"]'],
      ["--models=flux-2-pro,gpt-image-2,flux-2-max"],
    ]) {
      const out = await run([...words, "--no-wait"]);
      expect(out.code, out.stderr).toBe(0);
      expect(bodyOf(out.seen, "/v1/images/generations")).toEqual({
        prompt: "a kite",
        models: ["flux-2-pro", "gpt-image-2", "flux-2-max"],
      });
    }
  });

  it("the provider flags are the provider preferences, merged over a provider the body gives", async () => {
    const out = await run([
      "--provider-order",
      "fal,replicate",
      "--provider-only",
      "fal,replicate,sandbox",
      "--provider-ignore",
      "openai",
      "--sort",
      "latency",
      "--no-fallbacks",
      "--no-wait",
    ]);
    expect(out.code, out.stderr).toBe(0);
    expect(bodyOf(out.seen, "/v1/images/generations")).toEqual({
      prompt: "a kite",
      provider: {
        order: ["fal", "replicate"],
        only: ["fal", "replicate", "sandbox"],
        ignore: ["openai"],
        sort: "latency",
        allow_fallbacks: false,
      },
    });
    const merged = await run(["--body", '{"provider":{"sort":"price","ignore":["fal"]}}', "--sort", "latency", "--no-wait"]);
    expect(bodyOf(merged.seen, "/v1/images/generations").provider).toEqual({ sort: "latency", ignore: ["fal"] });
    // --no-fallbacks is a switch: the word after it is never its value.
    const last = await runCliOn(["generate", "text_to_image", "--no-fallbacks", "--prompt", "x", "--no-wait"], {
      "POST /v1/images/generations": () => json(202, envelope("queued")),
    });
    expect(bodyOf(last.seen, "/v1/images/generations")).toEqual({ prompt: "x", provider: { allow_fallbacks: false } });
  });

  it("--quote prices the same models and preferences it then creates the task with", async () => {
    const out = await run(["--models", "flux-2-pro,gpt-image-2", "--provider-order", "sandbox", "--quote", "--yes", "--no-wait"]);
    expect(out.code, out.stderr).toBe(0);
    const routing = { models: ["flux-2-pro", "gpt-image-2"], provider: { order: ["sandbox"] } };
    expect(bodyOf(out.seen, "/v1/quotes")).toEqual({ operation: "text_to_image", request: { prompt: "a kite", ...routing } });
    expect(bodyOf(out.seen, "/v1/images/generations")).toEqual({ prompt: "a kite", ...routing, quote_id: "quo_1" });
  });
});

describe("usage errors, before any call", () => {
  it("--model with --models (also through --set or --body)", async () => {
    for (const words of [
      ["--model", "flux-2-pro", "--models", "gpt-image-2,flux-2-max"],
      ["--set", "model=flux-2-pro", "--models", "gpt-image-2"],
      ["--body", '{"model":"flux-2-pro"}', "--models", "gpt-image-2"],
    ]) {
      const out = await run(words);
      expect(out.code).toBe(2);
      expect(out.stderr).toContain("--model and --models cannot be given together");
      expect(out.seen).toEqual([]);
    }
  });

  it("an empty name in a list, a --sort it does not know, a value given to --no-fallbacks", async () => {
    const cases: [string[], string][] = [
      [["--models", "flux-2-pro,,gpt-image-2"], "--models takes comma-separated names, none empty"],
      [["--provider-order", "fal,"], "--provider-order takes comma-separated names, none empty"],
      [["--sort", "cheapest"], "--sort takes price or latency (got 'cheapest')"],
      [["--no-fallbacks=yes"], "--no-fallbacks takes no value"],
    ];
    for (const [words, message] of cases) {
      const out = await run(words);
      expect(out.code, words.join(" ")).toBe(2);
      expect(out.stderr).toContain(message);
      expect(out.seen).toEqual([]);
    }
  });

  it("the help describes each flag and the values it takes", async () => {
    const out = await runCliOn(["--help"], {});
    for (const words of [
      "--models <id,id,…>",
      "--provider-order <p,…>",
      "--provider-only <p,…>",
      "--provider-ignore <p,…>",
      "--sort price|latency",
      "--no-fallbacks",
      "Not with --model",
    ])
      expect(out.stdout).toContain(words);
  });
});

describe("the outcome names the model that served and those passed over", () => {
  const served = envelope("succeeded", {
    model: "flux-2-pro",
    resolved_model: "gpt-image-2",
    models: ["flux-2-pro", "gpt-image-2"],
    model_fallbacks: [
      { model: "flux-2-pro", reason: "upstream_failed", at: "2026-01-01T00:00:01Z", message: "the provider failed" },
    ],
    output: { artifacts: [] },
    completed_at: "2026-01-01T00:00:05Z",
  });

  it("a succeeded task: one line per model passed over", async () => {
    const out = await run(["--models", "flux-2-pro,gpt-image-2"], served);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("models flux-2-pro, gpt-image-2 → gpt-image-2");
    expect(out.stdout).toMatch(/✓ task_1 succeeded in 5\.0 s · model gpt-image-2 · /);
    expect(out.stdout).toContain("  passed over flux-2-pro — upstream_failed: the provider failed\n");
  });

  it("a failed task says them on stderr; tasks get lists the models and the ones passed over", async () => {
    const failed = {
      ...served,
      status: "failed",
      error: { code: "provider_error", message: "no listed model could serve" },
    };
    const out = await run(["--models", "flux-2-pro,gpt-image-2"], failed);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("  passed over flux-2-pro — upstream_failed: the provider failed\n");
    const shown = await runCliOn(["tasks", "get", "task_1"], { "GET /v1/tasks/task_1": () => json(200, served) });
    expect(shown.stdout).toContain("models     flux-2-pro, gpt-image-2");
    expect(shown.stdout).toContain("passed     flux-2-pro — upstream_failed: the provider failed");
  });
});
