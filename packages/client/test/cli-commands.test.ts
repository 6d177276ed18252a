/**
 * The commands that make the command line a complete client, on a fake fetch: the request each
 * sends (method, path, body) and what it prints; the snake_case spellings of flags kept working
 * beside kebab-case; the help's field lists; speech's default voice; a refused batch's every
 * invalid item; a batch's last progress line printed once.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli/main.js";
import { apiError, envelope, fakeFetch, json, runCliOn, type Seen, sse } from "./fake-fetch.js";

const sent = (seen: Seen[], i = 0) => {
  const s = seen[i];
  return { call: `${s?.method} ${s?.url.pathname}`, body: s?.body ? JSON.parse(s.body) : undefined };
};

const KEY = {
  key_id: "key_1",
  name: "ci",
  prefix: "sk_us_live_Ab3x",
  region: "us",
  mode: "live",
  permissions: ["tasks:read", "tasks:write"],
  status: "active",
  limits: { credits: "50", period: "month" },
  created_at: "2026-01-01T00:00:00Z",
  created_by: "operator",
  last_used_at: null,
  expires_at: null,
  replaced_by: null,
  revoked_at: null,
};
const ISSUED = { ...KEY, key_id: "key_2", api_key: "sk_us_live_NEWSECRET" };

describe("keys", () => {
  it("list, get, create (lists as comma-separated words), update, revoke", async () => {
    const list = await runCliOn(["keys", "list", "--limit", "5"], {
      "GET /v1/keys": () => json(200, { object: "list", data: [KEY], has_more: false, next_cursor: null }),
    });
    expect(list.code, list.stderr).toBe(0);
    expect(list.seen[0]?.url.search).toBe("?limit=5");
    expect(list.stdout).toMatch(/key_1\s+ci\s+live\s+active\s+sk_us_live_Ab3x\s+never/);

    const got = await runCliOn(["keys", "get", "key_1"], {
      "GET /v1/keys/key_1": () => json(200, { ...KEY, spent_credits: "3", reserved_credits: "0", remaining_credits: "47" }),
    });
    expect(got.stdout).toContain("limits     50 credits per month");
    expect(got.stdout).toContain("spent      3 credits (reserved 0, remaining 47)");

    const created = await runCliOn(
      [
        "keys",
        "create",
        "--name",
        "ci",
        "--permissions",
        "tasks:read,tasks:write",
        "--limits.credits",
        "50",
        "--limits.period",
        "month",
      ],
      { "POST /v1/keys": () => json(201, ISSUED) },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(sent(created.seen)).toEqual({
      call: "POST /v1/keys",
      body: { name: "ci", permissions: ["tasks:read", "tasks:write"], limits: { credits: 50, period: "month" } },
    });
    expect(created.stdout).toContain("api key    sk_us_live_NEWSECRET");
    expect(created.stdout).toContain("shown only now");

    const updated = await runCliOn(["keys", "update", "key_1", "--disabled"], {
      "PATCH /v1/keys/key_1": () => json(200, { ...KEY, status: "disabled" }),
    });
    expect(sent(updated.seen)).toEqual({ call: "PATCH /v1/keys/key_1", body: { disabled: true } });

    const revoked = await runCliOn(["keys", "revoke", "key_1", "--json"], {
      "DELETE /v1/keys/key_1": () => json(200, { ...KEY, status: "revoked", revoked_at: "2026-01-02T00:00:00Z" }),
    });
    expect(sent(revoked.seen).call).toBe("DELETE /v1/keys/key_1");
    expect(JSON.parse(revoked.stdout).status).toBe("revoked");
  });

  it("rotate creates a key like the old one, then revokes the old one unless --keep-old", async () => {
    const routes = {
      "GET /v1/keys/key_1": () => json(200, KEY),
      "POST /v1/keys": () => json(201, ISSUED),
      "DELETE /v1/keys/key_1": () => json(200, { ...KEY, status: "revoked" }),
    };
    const out = await runCliOn(["keys", "rotate", "key_1"], routes);
    expect(out.code, out.stderr).toBe(0);
    expect(out.seen.map((s) => `${s.method} ${s.url.pathname}`)).toEqual([
      "GET /v1/keys/key_1",
      "POST /v1/keys",
      "DELETE /v1/keys/key_1",
    ]);
    expect(sent(out.seen, 1).body).toEqual({
      name: "ci",
      permissions: ["tasks:read", "tasks:write"],
      mode: "live",
      limits: { period: "month", credits: "50" },
    });
    expect(out.stdout).toContain("key_2  replaces key_1");
    expect(out.stdout).toContain("key_1 revoked");
    const kept = await runCliOn(["keys", "rotate", "key_1", "--keep-old"], routes);
    expect(kept.seen.map((s) => s.method)).toEqual(["GET", "POST"]);
    expect(kept.stdout).toContain("key_1 still works");
  });
});

describe("quotes, chat and status", () => {
  it("quotes create prices the operation's body built from flags, and creates nothing", async () => {
    const quote = {
      object: "quote",
      quote_id: "quo_1",
      resolved_model: "m",
      credits: "2",
      lines: [],
      expires_at: "t",
      created_at: "t",
    };
    const out = await runCliOn(["quotes", "create", "text_to_image", "--prompt", "a fox", "--count", "2", "--max-credits", "3"], {
      "POST /v1/quotes": () => json(201, quote),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.seen).toHaveLength(1);
    expect(sent(out.seen)).toEqual({
      call: "POST /v1/quotes",
      body: { operation: "text_to_image", request: { prompt: "a fox", count: 2, max_credits: 3 } },
    });
    expect(out.stdout).toContain("quote quo_1 · model m · at most 2 credits");
    const bad = await runCliOn(["quotes", "create", "no_such"], {});
    expect(bad.code).toBe(2);
  });

  it("chat sends the prompt after the messages file and --system, with the model and fields given", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-chat-"));
    const file = join(dir, "m.json");
    writeFileSync(
      file,
      JSON.stringify({
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello" },
        ],
      }),
    );
    const completion = {
      object: "chat.completion",
      model: "m1",
      choices: [{ index: 0, message: { role: "assistant", content: "Red, green, blue." } }],
      usage: { prompt_tokens: 5, completion_tokens: 4 },
    };
    const out = await runCliOn(
      ["chat", "Name three colours.", "--messages-file", file, "--model", "m1", "--max-tokens", "50", "--system", "Be brief."],
      { "POST /v1/chat/completions": () => json(200, completion) },
    );
    expect(out.code, out.stderr).toBe(0);
    expect(sent(out.seen).body).toEqual({
      model: "m1",
      max_tokens: 50,
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
        { role: "system", content: "Be brief." },
        { role: "user", content: "Name three colours." },
      ],
    });
    expect(out.stdout).toBe("Red, green, blue.\n");
    expect(out.stderr).toContain("model m1 · 5 → 4 tokens");
    const none = await runCliOn(["chat"], {});
    expect(none.code).toBe(2);
  });

  it("chat --stream prints each token as it arrives", async () => {
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ object: "chat.completion.chunk", id: "c", model: "m1", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const writes: string[] = [];
    const fake = fakeFetch({
      "POST /v1/chat/completions": () => sse([chunk("One"), chunk(", two"), chunk(", three."), "data: [DONE]\n\n"]),
    });
    const code = await runCli(["chat", "--stream", "Count"], {
      stdout: { write: (s: string) => writes.push(s) },
      stderr: { write: () => undefined },
      env: { MEDIA_API_KEY: "k", MEDIA_API_BASE_URL: "https://api.example" },
      fetch: fake.fetch,
    });
    expect(code).toBe(0);
    expect(writes).toEqual(["One", ", two", ", three.", "\n"]);
    expect(JSON.parse(fake.seen[0]?.body as string)).toEqual({ messages: [{ role: "user", content: "Count" }], stream: true });
    expect(fake.seen[0]?.headers.get("accept")).toContain("text/event-stream");
  });

  it("status needs no key and prints the providers and the models that are not operational", async () => {
    const doc = {
      object: "status",
      generated_at: "2026-01-01T00:00:00Z",
      state: "degraded",
      providers: [
        { provider: "fal", state: "operational" },
        { provider: "replicate", state: "degraded" },
      ],
      models: [
        { model: "flux-2-pro", state: "degraded" },
        { model: "gpt-image-2", state: "operational" },
      ],
      open_circuits: [{}],
      incidents: [],
    };
    const fake = fakeFetch({ "GET /v1/status": () => json(200, doc) });
    let stdout = "";
    const code = await runCli(["status"], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: () => undefined },
      env: { MEDIA_API_BASE_URL: "https://api.example" },
      fetch: fake.fetch,
    });
    expect(code).toBe(0);
    expect(fake.seen[0]?.headers.get("authorization")).toBeNull();
    expect(stdout).toContain("degraded · as of 2026-01-01T00:00:00Z · 1 open circuit(s)");
    expect(stdout).toMatch(/replicate\s+degraded/);
    expect(stdout).toMatch(/flux-2-pro\s+degraded/);
    expect(stdout).not.toContain("gpt-image-2");
  });
});

const ENDPOINT = {
  object: "webhook_endpoint",
  endpoint_id: "we_1",
  mode: "live",
  url: "https://example.com/hooks",
  description: null,
  events: ["task.succeeded"],
  enabled: true,
  created_at: "t",
  updated_at: "t",
};

describe("webhooks endpoints", () => {
  it("create, update, rotate-secret, test, list (also with no subcommand) and delete", async () => {
    const routes = {
      "POST /v1/webhook-endpoints": () => json(201, { ...ENDPOINT, secret: "whsec_abc" }),
      "GET /v1/webhook-endpoints": () => json(200, { object: "list", data: [ENDPOINT], has_more: false }),
      "PATCH /v1/webhook-endpoints/we_1": () => json(200, { ...ENDPOINT, enabled: false }),
      "POST /v1/webhook-endpoints/we_1/rotate-secret": () =>
        json(200, { ...ENDPOINT, secret: "whsec_new", previous_secret_valid_until: "2026-01-02T00:00:00Z" }),
      "POST /v1/webhook-endpoints/we_1/test": () =>
        json(200, {
          delivery_id: "whd_1",
          status: "succeeded",
          event_type: "webhook.test",
          attempts: [{ attempt: 1, attempted_at: "t", http_status: 200, duration_ms: 12, error: null }],
        }),
      "DELETE /v1/webhook-endpoints/we_1": () => json(200, { object: "webhook_endpoint", endpoint_id: "we_1", deleted: true }),
    };
    const created = await runCliOn(
      ["webhooks", "endpoints", "create", "--url", "https://example.com/hooks", "--events", "task.succeeded,task.failed"],
      routes,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(sent(created.seen)).toEqual({
      call: "POST /v1/webhook-endpoints",
      body: { url: "https://example.com/hooks", events: ["task.succeeded", "task.failed"] },
    });
    expect(created.stdout).toContain("secret     whsec_abc");

    const updated = await runCliOn(["webhooks", "endpoints", "update", "we_1", "--no-enabled"], routes);
    expect(sent(updated.seen)).toEqual({ call: "PATCH /v1/webhook-endpoints/we_1", body: { enabled: false } });
    expect(updated.stdout).toContain("we_1  disabled");

    const rotated = await runCliOn(["webhooks", "endpoints", "rotate-secret", "we_1", "--overlap-seconds", "3600"], routes);
    expect(sent(rotated.seen)).toEqual({
      call: "POST /v1/webhook-endpoints/we_1/rotate-secret",
      body: { overlap_seconds: 3600 },
    });
    expect(rotated.stdout).toContain("whsec_new");
    expect(rotated.stdout).toContain("until 2026-01-02T00:00:00Z");

    const tested = await runCliOn(["webhooks", "endpoints", "test", "we_1"], routes);
    expect(tested.stdout).toContain("whd_1  succeeded  webhook.test → we_1: HTTP 200 in 12 ms");

    for (const argv of [
      ["webhooks", "endpoints"],
      ["webhooks", "endpoints", "list"],
    ]) {
      const listed = await runCliOn(argv, routes);
      expect(listed.stdout).toMatch(/we_1\s+enabled\s+task.succeeded\s+https:\/\/example.com\/hooks/);
    }
    const deleted = await runCliOn(["webhooks", "endpoints", "delete", "we_1"], routes);
    expect(sent(deleted.seen).call).toBe("DELETE /v1/webhook-endpoints/we_1");
    expect(deleted.stdout).toContain("we_1  deleted");
  });
});

describe("provider keys and storage destinations", () => {
  const PK = {
    object: "provider_key",
    provider: "fal",
    mode: "prefer",
    models: null,
    failover: true,
    base_url: null,
    last4: "abcd",
    status: "active",
    status_reason: null,
    created_at: "t",
    updated_at: "t",
    last_used_at: null,
  };

  it("provider-keys put (--key is the provider's key; mode defaults to prefer), list, remove", async () => {
    const routes = {
      "PUT /v1/provider-keys/fal": () => json(200, PK),
      "GET /v1/provider-keys": () => json(200, { object: "list", data: [PK], has_more: false }),
      "DELETE /v1/provider-keys/fal": () => json(200, { object: "provider_key", provider: "fal", deleted: true }),
    };
    const put = await runCliOn(["provider-keys", "put", "fal", "--key", "fal-secret-abcd", "--models", "flux-2-pro"], routes);
    expect(put.code, put.stderr).toBe(0);
    expect(sent(put.seen)).toEqual({
      call: "PUT /v1/provider-keys/fal",
      body: { models: ["flux-2-pro"], api_key: "fal-secret-abcd", mode: "prefer" },
    });
    // The gateway's own key is still the one that authenticates the call.
    expect(put.seen[0]?.headers.get("authorization")).toBe("Bearer sk_us_test_key");
    expect(put.stdout).toContain("fal  active  prefer  key …abcd");
    const list = await runCliOn(["provider-keys", "list"], routes);
    expect(list.stdout).toMatch(/fal\s+prefer\s+active\s+…abcd\s+every model\s+never/);
    const removed = await runCliOn(["provider-keys", "remove", "fal"], routes);
    expect(sent(removed.seen).call).toBe("DELETE /v1/provider-keys/fal");
  });

  const DST = {
    object: "storage_destination",
    destination_id: "dst_1",
    endpoint: "https://s3.example",
    bucket: "outs",
    region: "auto",
    prefix: "gw",
    path_style: true,
    default: false,
    access_key_id_last4: "AKID",
    secret_access_key_last4: "SKEY",
    verified_at: "2026-01-01T00:00:00Z",
    created_at: "t",
  };

  it("storage-destinations create, list, delete, and test (a task's outputs written to it)", async () => {
    const routes = {
      "POST /v1/storage-destinations": () => json(201, DST),
      "GET /v1/storage-destinations": () => json(200, { object: "list", data: [DST], has_more: false }),
      "GET /v1/storage-destinations/dst_1": () => json(200, DST),
      "DELETE /v1/storage-destinations/dst_1": () =>
        json(200, { object: "storage_destination", destination_id: "dst_1", deleted: true }),
      "POST /v1/tasks/task_1/deliveries": () =>
        json(
          200,
          envelope("succeeded", {
            output: {
              artifacts: [{ index: 0, delivered: [{ destination_id: "dst_1", key: "gw/task_1/0.png", etag: null, bytes: 9 }] }],
            },
            delivery: { destination_id: "dst_1", status: "delivered", attempt_count: 1, last_attempt_at: "t", failed: [] },
          }),
        ),
    };
    const argv = ["storage-destinations", "create", "--endpoint", "https://s3.example", "--bucket", "outs", "--region", "auto"];
    const created = await runCliOn(
      [...argv, "--access-key-id", "AKID", "--secret-access-key", "SKEY", "--prefix", "gw", "--path-style"],
      routes,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(sent(created.seen).body).toEqual({
      endpoint: "https://s3.example",
      bucket: "outs",
      region: "auto",
      access_key_id: "AKID",
      secret_access_key: "SKEY",
      prefix: "gw",
      path_style: true,
    });
    const list = await runCliOn(["storage-destinations", "list"], routes);
    expect(list.stdout).toMatch(/dst_1\s+https:\/\/s3.example\s+outs\s+gw/);
    const tested = await runCliOn(["storage-destinations", "test", "dst_1", "--task", "task_1"], routes);
    expect(tested.code, tested.stderr).toBe(0);
    expect(sent(tested.seen, 1)).toEqual({ call: "POST /v1/tasks/task_1/deliveries", body: { destination_id: "dst_1" } });
    expect(tested.stdout).toContain("dst_1  delivery delivered of task_1\n  wrote gw/task_1/0.png (9 bytes)");
    const untested = await runCliOn(["storage-destinations", "test", "dst_1"], routes);
    expect(untested.seen).toHaveLength(1);
    expect(untested.stdout).toContain("--task <task_id>");
    const deleted = await runCliOn(["storage-destinations", "delete", "dst_1"], routes);
    expect(sent(deleted.seen).call).toBe("DELETE /v1/storage-destinations/dst_1");
  });

  it("requests get is requests show", async () => {
    const out = await runCliOn(["requests", "get", "req_a", "--json"], {
      "GET /v1/requests/req_a": () => json(200, { request_id: "req_a", attempts: [] }),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).request_id).toBe("req_a");
  });
});

describe("one flag spelling, the old one still taken", () => {
  it("generate takes --max-credits and --max_credits as the field max_credits", async () => {
    for (const flag of ["--max-credits", "--max_credits"]) {
      const out = await runCliOn(["generate", "text_to_image", "--prompt", "x", flag, "2.5", "--no-wait"], {
        "POST /v1/images/generations": () => json(202, envelope("queued")),
      });
      expect(out.code, out.stderr).toBe(0);
      expect(sent(out.seen).body).toEqual({ prompt: "x", max_credits: 2.5 });
    }
  });

  it("batch run takes --max-credits and --max_credits; usage takes --group-by and --group_by", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-spell-"));
    const file = join(dir, "in.jsonl");
    writeFileSync(file, '{"custom_id":"a","body":{"prompt":"x"}}\n');
    for (const flag of ["--max-credits", "--max_credits"]) {
      const out = await runCliOn(["batch", "run", file, "--operation", "text_to_image", flag, "10", "--no-wait"], {
        "POST /v1/uploads": () => json(201, { object: "artifact", artifact_id: "art_in", lines: 1 }),
        "POST /v1/batches": () =>
          json(202, { batch_id: "b1", status: "queued", counts: { total: 1, succeeded: 0, failed: 0, canceled: 0, running: 0 } }),
      });
      expect(out.code, out.stderr).toBe(0);
      expect(sent(out.seen, 1).body).toEqual({ operation: "text_to_image", input_file_id: "art_in", max_credits: "10" });
    }
    for (const flag of ["--group-by", "--group_by"]) {
      const out = await runCliOn(["usage", flag, "model"], { "GET /v1/usage": () => json(200, { object: "usage" }) });
      expect(out.code, out.stderr).toBe(0);
      expect(out.seen[0]?.url.searchParams.get("group_by")).toBe("model");
    }
  });
});

describe("help from the OpenAPI document", () => {
  it("generate <capability> --help lists each field with its type, default, allowed values and description", async () => {
    const out = await runCliOn(["generate", "text_to_image", "--help"], {});
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("--count  integer  (default 1; 1 to 4)");
    expect(out.stdout).toContain("the model must support the exact count");
    expect(out.stdout).toMatch(/--output-format {2}string {2}\(one of: png, jpeg, webp\)/);
    expect(out.stdout).toMatch(/--max-credits {2}number\|string/);
    expect(out.stdout).toMatch(/--prompt {2}string {2}\(required\)/);
    const speech = await runCliOn(["generate", "text_to_speech", "--help"], {});
    expect(speech.stdout).toMatch(/--voice {2}string {2}\(required by the API; default the model's default voice/);
  });

  it("each command's --help shows its usage and the fields it sends, without a key", async () => {
    let stdout = "";
    const code = await runCli(["webhooks", "endpoints", "--help"], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: () => undefined },
      env: {},
    });
    expect(code).toBe(0);
    expect(stdout).toContain("media-api webhooks endpoints create --url");
    expect(stdout).toContain("each one of: *, task.succeeded");
    const keys = await runCliOn(["keys", "create", "--help"], {});
    expect(keys.stdout).toMatch(/--mode {2}string {2}\(one of: live, test\)/);
    expect(keys.seen).toEqual([]);
    const top = await runCliOn(["--help"], {});
    for (const command of [
      "keys",
      "quotes create",
      "chat",
      "status",
      "webhooks endpoints create",
      "provider-keys",
      "storage-destinations",
    ])
      expect(top.stdout).toContain(`media-api ${command}`);
  });
});

describe("speech's default voice", () => {
  const voices = {
    object: "list",
    data: [
      {
        voice_id: "v_other",
        display_name: "Other",
        language: "en-US",
        languages_supported: ["en-US"],
        compatible_models: ["tts-b"],
        status: "ready",
      },
      {
        voice_id: "v_a_fr",
        display_name: "Amélie",
        language: "fr-FR",
        languages_supported: ["fr-FR"],
        compatible_models: ["tts-a"],
        status: "ready",
      },
      {
        voice_id: "v_a_en",
        display_name: "Ann",
        language: "en-US",
        languages_supported: ["en-US"],
        compatible_models: ["tts-a"],
        status: "ready",
      },
    ],
  };
  const routes = {
    "GET /v1/voices": () => json(200, voices),
    "GET /v1/models": () =>
      json(200, {
        object: "list",
        data: [
          { id: "tts-b", capabilities: ["text_to_speech"], available: true },
          { id: "tts-a", capabilities: ["text_to_speech"], available: false },
        ],
      }),
    "POST /v1/audio/speech": () => json(202, envelope("queued", { capability: "text_to_speech" })),
  };

  it("without --voice: the model's first voice (speaking --language when given), and it says so", async () => {
    const named = await runCliOn(["generate", "text_to_speech", "--prompt", "hi", "--model", "tts-a", "--no-wait"], routes);
    expect(named.code, named.stderr).toBe(0);
    expect(sent(named.seen, 1).body).toEqual({ input: "hi", model: "tts-a", voice: "v_a_fr" });
    expect(named.stdout).toContain("voice v_a_fr (Amélie): the default voice of tts-a; --voice picks another");
    const english = await runCliOn(
      ["generate", "text_to_speech", "--prompt", "hi", "--model", "tts-a", "--language", "en", "--no-wait"],
      routes,
    );
    expect(sent(english.seen, 1).body.voice).toBe("v_a_en");
    // auto: a voice of a live speech model.
    const auto = await runCliOn(["generate", "text_to_speech", "--prompt", "hi", "--no-wait"], routes);
    expect(sent(auto.seen, 2).body).toEqual({ input: "hi", voice: "v_other" });
    // --voice given: no lookup.
    const given = await runCliOn(["generate", "text_to_speech", "--prompt", "hi", "--voice", "v9", "--no-wait"], routes);
    expect(given.seen.map((s) => s.url.pathname)).toEqual(["/v1/audio/speech"]);
  });
});

describe("batch run's output", () => {
  it("a refused batch prints every invalid item, not only the first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-batch-bad-"));
    const file = join(dir, "in.jsonl");
    writeFileSync(file, "{}\n{}\n{}\n");
    const errors = [
      { loc: ["input_file", 1, "body", "prompt"], reason: "Required" },
      { loc: ["input_file", 2, "body", "count"], reason: "must be at most 4" },
      { loc: ["input_file", 3, "body", "prompt"], reason: "Required" },
    ];
    const out = await runCliOn(["batch", "run", file, "--operation", "text_to_image"], {
      "POST /v1/uploads": () => json(201, { object: "artifact", artifact_id: "art_in", lines: 3 }),
      "POST /v1/batches": () =>
        apiError(422, "invalid_request", false, {
          message: "3 of 3 items are invalid, so the batch was not started; line 1: required.",
          details: { errors, invalid_items: 3, line: 1 },
        }),
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      "  line 1 body.prompt: Required\n  line 2 body.count: must be at most 4\n  line 3 body.prompt: Required\n",
    );
  });

  it("the last progress line is printed once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-batch-once-"));
    const file = join(dir, "in.jsonl");
    writeFileSync(file, '{"custom_id":"a","body":{"prompt":"x"}}\n');
    const done = {
      batch_id: "b1",
      status: "completed",
      counts: { total: 1, queued: 0, succeeded: 1, failed: 0, canceled: 0, running: 0 },
    };
    const out = await runCliOn(["batch", "run", file, "--operation", "text_to_image"], {
      "POST /v1/uploads": () => json(201, { object: "artifact", artifact_id: "art_in", lines: 1 }),
      "POST /v1/batches": () => json(202, { ...done, status: "queued", counts: { ...done.counts, queued: 1, succeeded: 0 } }),
      "GET /v1/batches/b1": () => json(200, done),
    });
    expect(out.code, out.stderr).toBe(0);
    const finals = out.stdout.split("\n").filter((l) => l.includes("1/1  completed"));
    expect(finals).toHaveLength(1);
  });
});
