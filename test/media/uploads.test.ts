/**
 * Uploads: the bytes decide what a file is; refused files (undecodable, not media, over the cap,
 * malformed bodies) get the envelope and leave nothing in R2; an upload is an input wherever a card
 * takes artifacts, and its URL (or any output's) is read from storage, never fetched. Deleting an
 * artifact is the owner's alone, once.
 */
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { artifactKey } from "../../src/media/artifacts";
import { signOutputUrl } from "../../src/media/signed-outputs";
import { MAX_UPLOAD_BYTES, UPLOAD_CAP_BYTES } from "../../src/media/uploads";
import { BASE, call, expectError, newTenant, send, type TestTenant } from "../helpers/api";
import { mp4, png } from "../helpers/media-fixtures";
import { createImage, newKey, waitFor } from "../helpers/tasks";
import * as f from "./fixtures";
import { buildFixtures } from "./fixtures";

let fixtures: Record<string, Uint8Array>;
let t: TestTenant;
let image512: Uint8Array;
beforeAll(async () => {
  fixtures = await buildFixtures();
  t = await newTenant({ credits: "5000" });
  image512 = await png(512, 512);
});
const fixture = (name: string) => fixtures[name] as Uint8Array;

function upload(key: string, body: BodyInit | null, headers: Record<string, string> = {}) {
  return send(
    new Request(`${BASE}/v1/uploads`, { method: "POST", body, headers: { Authorization: `Bearer ${key}`, ...headers } }),
  );
}

/** The tenant's objects under `artifacts/`, as R2 holds them. */
async function storedArtifacts(tenantId: string): Promise<R2Object[]> {
  const out: R2Object[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.ARTIFACTS.list({ prefix: "artifacts/", include: ["customMetadata"], ...(cursor ? { cursor } : {}) });
    out.push(...page.objects.filter((o) => o.customMetadata?.tenant_id === tenantId));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out;
}

const edit = (key: string, images: unknown[]) =>
  call("/v1/images/edits", {
    key,
    body: { model: "flux-2-pro", prompt: "make it blue", images },
    headers: { "Idempotency-Key": newKey() },
  });

describe("POST /v1/uploads", () => {
  it("stores a raw body as the caller's artifact, identified by its bytes, and serves it back", async () => {
    // The declared type says JPEG; the bytes are a PNG, and the bytes decide.
    const res = await upload(t.api_key, image512, { "Content-Type": "image/jpeg" });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({
      object: "artifact",
      artifact_id: expect.stringMatching(/^art_[0-9a-f]{32}$/),
      kind: "image",
      content_type: "image/png",
      bytes: image512.length,
      width: 512,
      height: 512,
      url: `${BASE}/v1/artifacts/${res.json.artifact_id}`,
      created_at: expect.any(String),
      expires_at: expect.any(String),
      source: "upload",
    });
    expect(Date.parse(res.json.created_at)).not.toBeNaN();
    expect(res.headers.get("Location")).toBe(res.json.url);
    const head = await env.ARTIFACTS.head(artifactKey(res.json.artifact_id));
    expect(head?.customMetadata).toEqual({
      tenant_id: t.tenant_id,
      key_id: t.key_id,
      source: "upload",
      expires_at: res.json.expires_at,
    });
    const got = await exports.default.fetch(new Request(res.json.url, { headers: { Authorization: `Bearer ${t.api_key}` } }));
    expect(got.status).toBe(200);
    expect(got.headers.get("Content-Type")).toBe("image/png");
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(image512);
    // Two uploads of the same file are two artifacts.
    const again = await upload(t.api_key, image512);
    expect(again.json.artifact_id).not.toBe(res.json.artifact_id);
  });

  it.each([
    ["mp4", { kind: "video", content_type: "video/mp4", width: 640, height: 360, duration_seconds: 2.5 }],
    ["webm", { kind: "video", content_type: "video/webm" }],
    ["wav", { kind: "audio", content_type: "audio/wav" }],
    ["m4a", { kind: "audio", content_type: "audio/mp4" }],
    ["mp3", { kind: "audio", content_type: "audio/mpeg" }],
    ["gif-animated", { kind: "image", content_type: "image/gif", width: 10, height: 8 }],
  ])("measures an uploaded %s", async (name, expected) => {
    const data = fixture(name);
    const res = await upload(t.api_key, data, { "Content-Type": "application/octet-stream" });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ ...expected, bytes: data.length });
    if (expected.kind !== "image") expect(res.json.duration_seconds).toBeGreaterThan(0);
    else expect(res.json.duration_seconds).toBeUndefined();
  });

  it("takes multipart/form-data with exactly one file part (other fields are ignored)", async () => {
    const form = new FormData();
    form.append("purpose", "input");
    form.append("media", new Blob([fixture("jpeg")], { type: "text/plain" }), "photo.txt");
    const res = await upload(t.api_key, form);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ kind: "image", content_type: "image/jpeg", width: 7, height: 5 });
  });

  it("refuses a multipart body with no file part, or with more than one, naming the part", async () => {
    const none = new FormData();
    none.append("file", "not a file");
    const e1 = expectError(await upload(t.api_key, none), 422, "invalid_request", "/file");
    expect(e1.message).toMatch(/one file part/);
    const two = new FormData();
    two.append("file", new Blob([fixture("png")]), "a.png");
    two.append("second", new Blob([fixture("png")]), "b.png");
    const e2 = expectError(await upload(t.api_key, two), 422, "invalid_request", "/second");
    expect(e2.details.errors[0].reason).toMatch(/exactly one file part.*2/);
    expectError(
      await upload(t.api_key, "--x\r\nnonsense", { "Content-Type": "multipart/form-data; boundary=y" }),
      422,
      "invalid_request",
    );
  });

  it("refuses undecodable bytes with invalid_media, and a file of a kind no capability takes with unsupported_media_type", async () => {
    const tenant = await newTenant();
    const random = crypto.getRandomValues(new Uint8Array(2048));
    random[0] = 0x00; // no format starts with four zero bytes and no box type
    random.fill(0, 1, 8);
    expectError(await upload(tenant.api_key, random), 422, "invalid_media", "");
    // A PNG cut short: its format is known, its structure does not hold.
    expectError(await upload(tenant.api_key, fixture("png").subarray(0, 40)), 422, "invalid_media", "");
    // A PNG whose image data does not inflate to what its header says (the validator's check).
    const lying = await png(64, 64);
    lying[19] = 128; // IHDR width 64 → 128: CRC no longer holds
    expectError(await upload(tenant.api_key, lying), 422, "invalid_media", "");
    for (const [body, detected] of [
      ["%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n", "application/pdf"],
      ["just some words, not a picture\n", "text/plain"],
      ['{"prompt":"a fox"}', "application/json"],
      ['<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"></svg>', "image/svg+xml"],
    ] as const) {
      const bytes = Uint8Array.from(body, (ch) => ch.charCodeAt(0));
      const e = expectError(
        await upload(tenant.api_key, bytes, { "Content-Type": "image/png" }),
        422,
        "unsupported_media_type",
        "",
      );
      expect(e.details.detected).toBe(detected);
    }
    // An AVIF image is an ISO BMFF file, like MP4: its brand says what it is.
    const avif = new Uint8Array([0, 0, 0, 0x1c, ...[..."ftypavif"].map((c) => c.charCodeAt(0)), ...new Uint8Array(16)]);
    expect(expectError(await upload(tenant.api_key, avif), 422, "unsupported_media_type").details.detected).toBe("image/avif");
    // A Matroska (not WebM) file is a known container holding what no capability takes.
    const mkv = fixture("webm").slice();
    const at = mkv.findIndex((_, i) => String.fromCharCode(...mkv.subarray(i, i + 4)) === "webm");
    expect(at).toBeGreaterThan(0);
    mkv.set(
      [..."matr"].map((c) => c.charCodeAt(0)),
      at,
    );
    expectError(await upload(tenant.api_key, mkv), 422, "unsupported_media_type", "");
    expect(await storedArtifacts(tenant.tenant_id)).toEqual([]);
  });

  it("refuses an empty body and a body shorter or longer than its declared length", async () => {
    const tenant = await newTenant();
    expectError(await upload(tenant.api_key, new Uint8Array(0)), 422, "invalid_request", "");
    const e = expectError(
      await upload(tenant.api_key, fixture("png"), { "Content-Length": String(fixture("png").length + 100) }),
      422,
      "invalid_request",
      "",
    );
    expect(e.details.errors[0].reason).toMatch(/ended after/);
    const longer = expectError(
      await upload(tenant.api_key, image512, { "Content-Length": String(image512.length - 10) }),
      422,
      "invalid_request",
      "",
    );
    expect(longer.details.errors[0].reason).toMatch(/longer than its declared/);
    expect(await storedArtifacts(tenant.tenant_id)).toEqual([]);
  });

  it("answers 413 media_too_large on a declared length over the kind's cap, having read only the first bytes", async () => {
    const tenant = await newTenant();
    const e = expectError(
      await upload(tenant.api_key, image512, { "Content-Length": String(UPLOAD_CAP_BYTES.image + 1) }),
      413,
      "media_too_large",
      "",
    );
    expect(e.details).toMatchObject({ max_bytes: UPLOAD_CAP_BYTES.image, kind: "image" });
    // The same length is within the video cap: it is the kind that decides.
    expect(UPLOAD_CAP_BYTES.video).toBeGreaterThan(UPLOAD_CAP_BYTES.image + 1);
    const mp4Head = fixture("mp4");
    const video = expectError(
      await upload(tenant.api_key, mp4Head, { "Content-Length": String(UPLOAD_CAP_BYTES.video + 1) }),
      413,
      "media_too_large",
    );
    expect(video.details.max_bytes).toBe(UPLOAD_CAP_BYTES.video);
    expect(await storedArtifacts(tenant.tenant_id)).toEqual([]);
  });

  it("answers 413 to a body without a length past the kind's cap, storing nothing and discarding the rest", async () => {
    const tenant = await newTenant();
    const head = await png(8, 8);
    const chunk = new Uint8Array(1024 * 1024);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) {
          sent += head.length;
          return controller.enqueue(head);
        }
        if (sent > UPLOAD_CAP_BYTES.image * 2) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const e = expectError(await upload(tenant.api_key, body), 413, "media_too_large", "");
    expect(e.details.max_bytes).toBe(UPLOAD_CAP_BYTES.image);
    // Read to its end before the answer, so that a client still sending can read it (src/http/unread-body.ts).
    expect(sent).toBeGreaterThan(UPLOAD_CAP_BYTES.image * 2);
    expect(await storedArtifacts(tenant.tenant_id)).toEqual([]);
  });

  it("caps a multipart body at the largest kind's cap", async () => {
    const e = expectError(
      await upload(t.api_key, "x", {
        "Content-Type": "multipart/form-data; boundary=b",
        "Content-Length": String(MAX_UPLOAD_BYTES + 2 * 1024 * 1024),
      }),
      413,
      "media_too_large",
    );
    expect(e.details.max_bytes).toBe(MAX_UPLOAD_BYTES);
  });

  it("caps are the inputs' caps at admission: an accepted upload can always be used as an input", async () => {
    // Cards may publish larger files than a Worker can probe in memory; the service's own cap
    // is what it can check, and a card's larger figure is the upstream's, not a promise of ours.
    const largest: Record<string, number> = { image: 0, video: 0, audio: 0 };
    const caps = await call("/v1/catalog/capabilities", { key: t.api_key });
    for (const { capability } of caps.json.data) {
      const detail = await call(`/v1/catalog/capabilities/${capability}`, { key: t.api_key });
      for (const card of detail.json.models ?? [])
        for (const input of card.inputs ?? [])
          largest[input.kind] = Math.max(largest[input.kind] ?? 0, input.hard_constraints.max_bytes);
    }
    for (const kind of ["image", "video", "audio"] as const) {
      expect(largest[kind]).toBeGreaterThan(0);
      expect(UPLOAD_CAP_BYTES[kind], kind).toBeGreaterThanOrEqual(Math.min(largest[kind] as number, 50 * 1024 * 1024));
      expect(UPLOAD_CAP_BYTES[kind], kind).toBeLessThanOrEqual(100 * 1024 * 1024);
    }
  });

  it("stores an MP3 behind two ID3v2 tags, which decoders play, with its duration", async () => {
    const url = import.meta.glob<string>("./corpus/mp3-two-id3v2-tags.mp3", { query: "?inline", import: "default", eager: true })[
      "./corpus/mp3-two-id3v2-tags.mp3"
    ] as string;
    const mp3 = Uint8Array.from(atob(url.slice(url.indexOf(",") + 1)), (c) => c.charCodeAt(0));
    const res = await upload(t.api_key, mp3, { "Content-Type": "audio/mpeg" });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ kind: "audio", content_type: "audio/mpeg", bytes: mp3.length });
    expect(res.json.duration_seconds).toBeCloseTo(1.071, 2);
  });

  it("refuses an image over the largest pixel count any card accepts, from its header, before decoding or keeping it", async () => {
    const tenant = await newTenant();
    const bound = await largestImageAnyCardAccepts(tenant.api_key);
    expect(bound).toBeGreaterThanOrEqual(4096 * 4096);
    // A 16,000 × 16,000 greyscale PNG: 256 MB decoded, from a stream of zeros that is no valid image
    // data at all. Its IHDR is in the first bytes: the pixel count alone refuses it (decoded, it would
    // be refused as malformed instead).
    const ihdr = (width: number, height: number) =>
      f.bytes("\x89PNG\r\n\x1a\n", f.pngChunk("IHDR", [...f.be32(width), ...f.be32(height), 8, 0, 0, 0, 0]));
    let sent = 0;
    const bomb = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) {
          const head = f.bytes(ihdr(16000, 16000), f.be32(0x7fffffff), "IDAT", [0x78, 0x9c]);
          sent += head.length;
          return controller.enqueue(head);
        }
        if (sent > 8 * 1024 * 1024) return controller.close();
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const e = expectError(await upload(tenant.api_key, bomb), 413, "media_too_large", "");
    expect(e.details).toEqual({ kind: "image", max_pixels: bound, width: 16000, height: 16000 });
    // The rest was read and thrown away, so that the client could read its answer (src/http/unread-body.ts).
    expect(sent).toBeGreaterThan(8 * 1024 * 1024);

    // One pixel row over the bound is refused; the same file as a multipart part names its part.
    const width = Math.floor(Math.sqrt(bound));
    const over = f.bytes(ihdr(width, Math.floor(bound / width) + 1), f.pngChunk("IDAT", [0x78, 0x9c, 3, 0]), f.pngChunk("IEND"));
    expect(expectError(await upload(tenant.api_key, over), 413, "media_too_large", "").details.max_pixels).toBe(bound);
    const form = new FormData();
    form.append("file", new Blob([over]), "big.png");
    expectError(await upload(tenant.api_key, form), 413, "media_too_large", "/file");

    // WebP (VP8X canvas) and JPEG are read the same way; this JPEG's frame header comes after 8 KB
    // of EXIF, past the first bytes, so the full probe's reading refuses it, before validation.
    expectError(await upload(tenant.api_key, f.webpExtended({ width: 16000, height: 16000 })), 413, "media_too_large", "");
    const small = f.jpeg(16000, 16000);
    const exif = f.bytes([0xff, 0xe1], f.be16(8002), "Exif\0\0", f.zeros(7994));
    const jpeg = f.bytes(small.subarray(0, 2), exif, small.subarray(2));
    const je = expectError(await upload(tenant.api_key, jpeg), 413, "media_too_large", "");
    expect(je.details).toMatchObject({ width: 16000, height: 16000 });
    // Within the bound, the same shapes are stored.
    expect((await upload(tenant.api_key, f.webpExtended({ width: 300, height: 200 }))).status).toBe(201);
    expect(await storedArtifacts(tenant.tenant_id)).toHaveLength(1);
  });

  it("needs an API key with tasks:write", async () => {
    expectError(await upload("", image512), 401, "unauthorized");
    const reader = await newTenant({ permissions: ["tasks:read", "catalog:read"] });
    expectError(await upload(reader.api_key, image512), 403, "forbidden");
    expect(await storedArtifacts(reader.tenant_id)).toEqual([]);
  });
});

describe("an upload as a task input", () => {
  it("is accepted as {type: artifact}, and its URL (absolute or relative) is read from storage, not fetched", async () => {
    const up = await upload(t.api_key, image512);
    const id = up.json.artifact_id;
    const byId = await edit(t.api_key, [{ type: "artifact", artifact_id: id }]);
    expect(byId.status, byId.text).toBe(202);
    // api.test is a refused host for the fetcher (an internal zone): only a read from storage can serve it.
    for (const url of [up.json.url, `/v1/artifacts/${id}`]) {
      const res = await edit(t.api_key, [{ type: "url", url }]);
      expect(res.status, `${url}: ${res.text}`).toBe(202);
      expect(res.json.input.images[0]).toEqual({ type: "url", url });
    }
    expect((await waitFor(t, byId.json.task_id)).status).toBe("succeeded");
  });

  it("another tenant's artifact URL is artifact_not_found at the URL's pointer", async () => {
    const up = await upload(t.api_key, image512);
    const other = await newTenant();
    expectError(await edit(other.api_key, [{ type: "url", url: up.json.url }]), 404, "artifact_not_found", "/images/0/url");
    expectError(
      await edit(other.api_key, [{ type: "artifact", artifact_id: up.json.artifact_id }]),
      404,
      "artifact_not_found",
      "/images/0/artifact_id",
    );
  });

  it("a signed download URL is read from storage: for anyone while its signature holds", async () => {
    const up = await upload(t.api_key, image512);
    const other = await newTenant();
    const expires = Math.floor(Date.now() / 1000) + 3600;
    const signed = await signOutputUrl(env, BASE, up.json.artifact_id, expires);
    const res = await edit(other.api_key, [{ type: "url", url: signed }]);
    expect(res.status, res.text).toBe(202);
    const forged = signed.replace(/sig=[0-9a-f]/, (m) => (m.endsWith("0") ? "sig=1" : "sig=0"));
    expectError(await edit(other.api_key, [{ type: "url", url: forged }]), 404, "artifact_not_found", "/images/0/url");
    // The owner needs no signature at all.
    expect((await edit(t.api_key, [{ type: "url", url: `${BASE}/files/${up.json.artifact_id}` }])).status).toBe(202);
  });

  it("a task's output URL given back as an input resolves to that artifact", async () => {
    const created = await createImage(t, { prompt: "a red fox", canvas: { type: "preset", tier: "1K", aspect: "1:1" } });
    expect(created.status).toBe(202);
    const done = await waitFor(t, created.json.task_id);
    expect(done.status).toBe("succeeded");
    const output = done.output.images[0];
    const res = await edit(t.api_key, [{ type: "url", url: output.url }]);
    expect(res.status, res.text).toBe(202);
  });

  it("an uploaded video is accepted where a card takes video", async () => {
    const card = (await call("/v1/catalog/capabilities/video_to_text", { key: t.api_key })).json.models[0];
    const up = await upload(t.api_key, mp4(4, 1280, 720));
    expect(up.status, up.text).toBe(201);
    const res = await call("/v1/videos/responses", {
      key: t.api_key,
      body: { model: card.model, prompt: "Describe it", video: { type: "artifact", artifact_id: up.json.artifact_id } },
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status, res.text).toBe(202);
  });
});

describe("DELETE /v1/artifacts/{artifact_id}", () => {
  it("deletes the caller's upload once; later reads and inputs naming it are 404", async () => {
    const up = await upload(t.api_key, fixture("jpeg"));
    const id = up.json.artifact_id;
    const del = await call(`/v1/artifacts/${id}`, { method: "DELETE", key: t.api_key });
    expect(del.status, del.text).toBe(200);
    expect(del.json).toEqual({ object: "artifact", artifact_id: id, deleted: true });
    expect(await env.ARTIFACTS.head(artifactKey(id))).toBeNull();
    expectError(await call(`/v1/artifacts/${id}`, { method: "DELETE", key: t.api_key }), 404, "artifact_not_found");
    expectError(await call(`/v1/artifacts/${id}`, { key: t.api_key }), 404, "artifact_not_found");
    expectError(
      await edit(t.api_key, [{ type: "artifact", artifact_id: id }]),
      404,
      "artifact_not_found",
      "/images/0/artifact_id",
    );
    expectError(await edit(t.api_key, [{ type: "url", url: up.json.url }]), 404, "artifact_not_found", "/images/0/url");
  });

  it("deletes a task's output", async () => {
    const created = await createImage(t, { prompt: "a lighthouse", canvas: { type: "preset", tier: "1K", aspect: "1:1" } });
    const done = await waitFor(t, created.json.task_id);
    const id = done.output.images[0].artifact_id;
    expect((await call(`/v1/artifacts/${id}`, { method: "DELETE", key: t.api_key })).status).toBe(200);
    expectError(await call(`/v1/artifacts/${id}`, { key: t.api_key }), 404, "artifact_not_found");
  });

  it("another tenant's artifact, an unknown id and a malformed id are all 404, and nothing is removed", async () => {
    const up = await upload(t.api_key, fixture("gif"));
    const other = await newTenant();
    for (const id of [up.json.artifact_id, "art_0123456789abcdef0123456789abcdef", "art_x", "..%2F..%2Fvoice-previews%2Fx"]) {
      expectError(await call(`/v1/artifacts/${id}`, { method: "DELETE", key: other.api_key }), 404, "artifact_not_found");
    }
    expect((await call(`/v1/artifacts/${up.json.artifact_id}`, { key: t.api_key })).status).toBe(200);
    const reader = await newTenant({ permissions: ["tasks:read"] });
    expectError(await call(`/v1/artifacts/${up.json.artifact_id}`, { method: "DELETE", key: reader.api_key }), 403, "forbidden");
  });
});

/**
 * The largest image any card of the public catalog accepts: its edge maximum squared, or, where its
 * aspect bounds exclude a square, the long edge at the maximum and the short one at the bound's ratio.
 */
async function largestImageAnyCardAccepts(key: string): Promise<number> {
  const ratio = (t: string) =>
    t
      .split(":")
      .map(Number)
      .reduce((a, b) => a / b);
  let largest = 0;
  const caps = await call("/v1/catalog/capabilities", { key });
  for (const { capability } of caps.json.data) {
    const detail = await call(`/v1/catalog/capabilities/${capability}`, { key });
    for (const card of detail.json.models ?? [])
      for (const input of card.inputs ?? []) {
        const edges = input.kind === "image" ? input.hard_constraints.edge_pixels : undefined;
        if (!edges) continue;
        const aspect = input.hard_constraints.aspect_ratio;
        const [lo, hi] = aspect ? [ratio(aspect.minimum), ratio(aspect.maximum)] : [1, 1];
        const m = edges.maximum;
        const area = lo <= 1 && hi >= 1 ? m * m : hi < 1 ? Math.floor(m * hi) * m : m * Math.floor(m / lo);
        largest = Math.max(largest, area);
      }
  }
  return largest;
}
