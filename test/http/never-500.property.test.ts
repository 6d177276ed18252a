import { exports } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/errors/codes";
import { ADMIN_TOKEN, BASE, newTenant, type TestTenant } from "../helpers/api";
import { createImage } from "../helpers/tasks";

let tenant: TestTenant;
let taskId: string;
beforeAll(async () => {
  tenant = await newTenant({ credits: "100000" });
  taskId = (await createImage(tenant, { prompt: "fuzz target", canvas: { type: "preset", tier: "1K", aspect: "1:1" } })).json
    .task_id;
});

const paths = [
  "/v1/models",
  "/v1/catalog/models",
  "/v1/catalog/capabilities",
  "/v1/catalog/capabilities/text_to_image",
  "/v1/catalog/models/imagen-4.0-generate-001",
  "/v1/voices",
  "/v1/voices/alloy",
  "/admin/v1/tenants",
  "/admin/v1/tenants/{tenant}",
  "/admin/v1/tenants/{tenant}/credits",
  "/admin/v1/tenants/{tenant}/api-keys",
  "/admin/v1/tenants/{tenant}/disable-not",
  "/admin/v1/tenants/{tenant}/callback-signing-keys",
  "/admin/v1/api-keys/key_x/revoke",
  "/admin/v1/callback-signing-keys/whk_x/retire",
  "/v1/tasks/task_x",
  "/v1/tasks",
  "/v1/tasks?limit=2&cursor=abc",
  "/v1/tasks?created_after=2026-01-01&created_before=2025-01-01",
  "/v1/tasks/{task}/cancel",
  "/v1/tasks/{task}/assets",
  "/v1/artifacts/art_00000000000000000000000000000000",
  "/v1/uploads",
  "/v1/images/generations",
  "/v1/images/image-to-image",
  "/v1/images/edits",
  "/v1/images/responses",
  "/v1/videos/prompts/enhance",
  "/v1/videos/text-to-video",
  "/v1/videos/image-to-video",
  "/v1/videos/reference-to-video",
  "/v1/videos/frames-to-video",
  "/v1/videos/extend",
  "/v1/videos/responses",
  "/v1/music/text-to-music",
  "/v1/audio/speech",
  "/v1/chat/completions",
  "/healthz",
];

const printable = fc.string({
  unit: fc.constantFrom(..." !\"#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~"),
  maxLength: 80,
});
const segment = fc.oneof(printable.map(encodeURIComponent), fc.constantFrom("..", "%00", "%ff", "__proto__", "constructor"));

const pathArb = fc.oneof(
  fc.constantFrom(...paths),
  fc.tuple(fc.constantFrom(...paths), segment).map(([p, s]) => `${p}/${s}`),
  fc.tuple(fc.constantFrom(...paths), printable).map(([p, q]) => `${p}?${encodeURIComponent(q)}=${encodeURIComponent(q)}`),
  fc.constantFrom(
    "/v1/voices?language=",
    "/v1/voices?category=x&category=y",
    "/v1/voices?q=%E2%82",
    `/v1/voices?gender=${"a".repeat(5000)}`,
  ),
);

const jsonValue = fc.jsonValue({ maxDepth: 4 });
const media = fc.oneof(
  fc.record({
    type: fc.constant("url"),
    url: fc.constantFrom("http://127.0.0.1:1/x.png", "https://10.0.0.1/x", "https://169.254.169.254/latest", "nope"),
  }),
  fc.record({ type: fc.constant("artifact"), artifact_id: fc.constantFrom("art_0123456789abcdef0123456789abcdef", "art_x", "") }),
  fc.record({
    type: fc.constant("data_uri"),
    data_uri: fc.oneof(
      fc.constantFrom(
        "data:image/png;base64,iVBORw0KGgo=",
        "data:,hello",
        "data:image/png;base64,@@@",
        "data:image/gif;base64,R0lGODlhAQABAAAAACw=",
      ),
      fc.uint8Array({ maxLength: 64 }).map((b) => `data:application/octet-stream;base64,${btoa(String.fromCharCode(...b))}`),
    ),
  }),
  fc.jsonValue(),
);
const bodyArb = fc.oneof(
  fc.constant(undefined),
  jsonValue.map((v) => JSON.stringify(v)),
  fc
    .record(
      {
        name: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.string({ minLength: 5000, maxLength: 20000 })),
        credits: fc.oneof(fc.string(), fc.double(), fc.constant("1e400"), fc.constant("99999999999999999999.5")),
        amount: fc.oneof(fc.string(), fc.integer(), fc.constant("-0"), fc.constant("0.0000000001")),
        source: fc.oneof(fc.string(), fc.constant("")),
        region: fc.oneof(fc.string(), fc.constant("eu"), fc.constant("US")),
        permissions: fc.oneof(fc.array(fc.string()), fc.constant(["chat", "chat"]), fc.string()),
        prompt: fc.oneof(fc.string(), fc.constant("   "), fc.integer(), fc.string({ minLength: 1000, maxLength: 5000 })),
        model: fc.oneof(fc.constant("auto"), fc.string(), fc.constant("gpt-image-2"), fc.constant("seedream-4.0")),
        count: fc.oneof(fc.integer({ min: -2, max: 6 }), fc.double(), fc.string()),
        canvas: fc.oneof(
          fc.record({
            type: fc.constantFrom("preset", "target", "x"),
            tier: fc.constantFrom("1K", "2K", "4K", "8K"),
            aspect: fc.constantFrom("16:9", "1:1", "source", "0:0", "9:21"),
          }),
          fc.record({
            type: fc.constant("target"),
            width: fc.integer({ min: -10, max: 20000 }),
            height: fc.integer({ min: -10, max: 20000 }),
          }),
          fc.jsonValue(),
        ),
        seed: fc.oneof(fc.integer(), fc.double(), fc.constant(-1)),
        palette: fc.array(
          fc.record({ color: fc.constantFrom("#ff0000", "#00f", "red"), weight: fc.double({ min: -1, max: 2 }) }),
          { maxLength: 12 },
        ),
        metadata: fc.dictionary(fc.string({ maxLength: 70 }), fc.oneof(fc.string({ maxLength: 600 }), fc.integer()), {
          maxKeys: 20,
        }),
        callback_url: fc.constantFrom("https://example.com/h", "http://10.0.0.1/", "javascript:alert(1)", "https://[::1]/"),
        callback_signing_key_id: fc.constantFrom("whk_x", ""),
        reason: fc.oneof(fc.string(), fc.integer()),
        images: fc.oneof(fc.array(fc.oneof(media, fc.jsonValue()), { maxLength: 6 }), fc.jsonValue()),
        image: media,
        video: media,
        audio: media,
        first_frame: media,
        last_frame: media,
        driving_audio: media,
        references: fc.array(fc.record({ kind: fc.constantFrom("image", "video", "audio", "smell"), media, role: fc.string() }), {
          maxLength: 4,
        }),
        edit_regions: fc.array(
          fc.record({
            image_index: fc.integer({ min: -1, max: 5 }),
            x: fc.double(),
            y: fc.double(),
            width: fc.double(),
            height: fc.double(),
          }),
          { maxLength: 3 },
        ),
        duration: fc.oneof(fc.integer({ min: -5, max: 100 }), fc.constant("auto"), fc.string()),
        resolution: fc.constantFrom("480p", "720p", "1080p", "8k", ""),
        direction: fc.constantFrom("before", "after", "sideways"),
        instruction: fc.string(),
        voice: fc.constantFrom("alloy", "English_radiant_girl", "nope", ""),
        input: fc.oneof(fc.string(), fc.integer()),
        speed: fc.oneof(fc.double(), fc.constant(3)),
        format: fc.constantFrom("mp3", "wav", "opus", "aiff"),
        lyrics: fc.string(),
        instrumental: fc.oneof(fc.boolean(), fc.string()),
        messages: fc.oneof(
          fc.array(
            fc.record({
              role: fc.constantFrom("user", "system", "assistant", "tool", "robot"),
              content: fc.oneof(fc.string(), fc.jsonValue()),
            }),
            { maxLength: 3 },
          ),
          fc.jsonValue(),
        ),
        stream: fc.oneof(fc.boolean(), fc.string()),
        max_tokens: fc.oneof(fc.integer({ min: -5, max: 10_000_000 }), fc.string()),
        tools: fc.jsonValue(),
        model_options: fc.oneof(
          fc.jsonValue(),
          fc.record({ family_a: fc.record({ style_weight: fc.double(), custom_mode: fc.boolean() }), family_b: fc.jsonValue() }),
        ),
        __proto__: fc.jsonValue(),
      },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
  printable,
  fc.constantFrom("{", "[", "null", "true", '"str"', "1e999", "\u0000", '{"a":1,"a":2}'),
  // Deeper than any parser's recursion should be trusted with, in every place a body nests.
  fc.integer({ min: 60, max: 6000 }).map((d) => `{"prompt":"x","metadata":${"[".repeat(d)}${"]".repeat(d)}}`),
  fc.integer({ min: 60, max: 6000 }).map((d) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`),
  fc
    .integer({ min: 60, max: 3000 })
    .map((d) => `{"model":"auto","messages":[{"role":"user","content":${"[".repeat(d)}"x"${"]".repeat(d)}}]}`),
  // Larger media than the fetch caps, inline.
  fc
    .integer({ min: 1, max: 3 })
    .map(
      (mb) =>
        `{"prompt":"x","images":[{"type":"data_uri","data_uri":"data:image/png;base64,iVBORw0KGgo${"A".repeat(mb * 1024 * 1024)}"}]}`,
    ),
);

const authArb = fc.oneof(
  fc.constant<string | undefined>(undefined),
  fc.constant("tenant"),
  fc.constant("admin"),
  printable.map((s) => `Bearer ${s}`),
  fc.constantFrom("Bearer", "bearer  ", "Basic Zm9vOmJhcg==", `Bearer sk_eu_${"a".repeat(43)}`, `Bearer sk_us_${"a".repeat(43)}`),
);

const contentTypeArb = fc.constantFrom(
  undefined,
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/vnd.api+json",
  "application/json;;;",
  "",
);

describe("no input yields a 500 or a body that is not the envelope", () => {
  it("holds for random methods, paths, headers and bodies", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH"),
        pathArb,
        authArb,
        contentTypeArb,
        bodyArb,
        fc.option(printable, { nil: undefined }),
        fc.option(fc.oneof(printable, fc.constant(""), fc.string({ minLength: 129, maxLength: 200 })), { nil: undefined }),
        async (method, rawPath, auth, contentType, body, requestId, idempotencyKey) => {
          const path = rawPath.replaceAll("{tenant}", tenant.tenant_id).replaceAll("{task}", taskId);
          const headers = new Headers();
          if (auth === "tenant") headers.set("Authorization", `Bearer ${tenant.api_key}`);
          else if (auth === "admin") headers.set("Authorization", `Bearer ${ADMIN_TOKEN}`);
          else if (auth !== undefined) headers.set("Authorization", auth);
          if (contentType !== undefined) headers.set("Content-Type", contentType);
          if (requestId !== undefined) headers.set("X-Request-Id", requestId);
          if (idempotencyKey !== undefined) headers.set("Idempotency-Key", idempotencyKey);
          const withBody = method !== "GET" && body !== undefined;
          const res = await exports.default.fetch(
            new Request(`${BASE}${path}`, { method, headers, body: withBody ? body : undefined }),
          );
          const text = await res.text();
          expect(res.status, `${method} ${path} → ${text.slice(0, 300)}`).toBeLessThan(500);
          const echoed = res.headers.get("X-Request-Id");
          expect(echoed).toBeTruthy();
          if (res.status >= 400) {
            const parsed = JSON.parse(text);
            const e = parsed.error;
            expect(Object.keys(parsed)).toEqual(["error"]);
            expect(Object.hasOwn(ERROR_CODES, e.code)).toBe(true);
            expect(ERROR_CODES[e.code as keyof typeof ERROR_CODES].status).toBe(res.status);
            expect(typeof e.message).toBe("string");
            expect(typeof e.type).toBe("string");
            expect(typeof e.retryable).toBe("boolean");
            expect(e.request_id).toBe(echoed);
            if (e.param !== undefined) expect(e.param === "" || e.param.startsWith("/")).toBe(true);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
