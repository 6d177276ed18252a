import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { ERROR_CODES } from "../../src/errors/codes";
import { artifactId, putArtifact } from "../../src/media/artifacts";
import { decodeDataUri } from "../../src/media/data-uri";
import { guardedFetch } from "../../src/media/guarded-fetch";
import { MediaInput, type MediaInputT, resolveMediaInput } from "../../src/media/resolve-input";
import { buildFixtures } from "./fixtures";

const PARAM = "/images/0";
const RETRY = { action: "retry", requires_input_change: false, client_request_id: "same" };
const CHANGE_INPUT = { action: "change_input", requires_input_change: true, client_request_id: "new" };
const MB = 1024 * 1024;

let fixtures: Record<string, Uint8Array>;
beforeAll(async () => {
  fixtures = await buildFixtures();
});

const fixture = (name: string) => fixtures[name]!;
const media = (path: string) => `${env.RECEIVER_URL}/media/${path}`;
const resolve = (input: MediaInputT, extra: { tenantId?: string; maxBytes?: number; maxEncodedLength?: number } = {}) => {
  const { tenantId = "ten_owner", ...rest } = extra;
  return resolveMediaInput(input, {
    env,
    scope: { tenant_id: tenantId, mode: "live" },
    param: PARAM,
    maxBytes: extra.maxBytes ?? 10 * MB,
    ...rest,
  });
};

async function refusal(work: Promise<unknown> | (() => unknown), code: string, param: string): Promise<ApiError> {
  let error: unknown;
  try {
    await (typeof work === "function" ? work() : work);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ApiError);
  const e = error as ApiError;
  expect(e.code, e.message).toBe(code);
  expect(e.param).toBe(param);
  return e;
}

function base64(data: Uint8Array): string {
  let s = "";
  for (const b of data) s += String.fromCharCode(b);
  return btoa(s);
}

describe("MediaInput", () => {
  it("takes the three transports and refuses unknown or extra fields", () => {
    expect(MediaInput.safeParse({ type: "url", url: "https://example.com/a.png" }).success).toBe(true);
    expect(MediaInput.safeParse({ type: "artifact", artifact_id: "art_x" }).success).toBe(true);
    expect(MediaInput.safeParse({ type: "data_uri", data_uri: "data:,x" }).success).toBe(true);
    expect(MediaInput.safeParse({ type: "url", url: "https://example.com/a.png", extra: 1 }).success).toBe(false);
    expect(MediaInput.safeParse({ type: "file", path: "/etc/passwd" }).success).toBe(false);
    expect(MediaInput.safeParse({ type: "url", url: "" }).success).toBe(false);
  });
});

describe("data URIs", () => {
  it("decodes and probes a base64 data URI, reporting its encoded length", async () => {
    const uri = `data:image/png;base64,${base64(fixture("png"))}`;
    const r = await resolve({ type: "data_uri", data_uri: uri });
    expect(r.transport).toBe("data_uri");
    expect(r.data).toEqual(fixture("png"));
    expect(r.encoded_length).toBe(uri.length);
    expect(r.probe).toMatchObject({ kind: "image", mime: "image/png", width: 5, height: 3 });
  });

  it("identifies the bytes, not the declared type", async () => {
    const r = await resolve({ type: "data_uri", data_uri: `data:image/png;base64,${base64(fixture("wav"))}` });
    expect(r.probe).toMatchObject({ kind: "audio", mime: "audio/wav" });
    expect(
      decodeDataUri(`data:IMAGE/PNG;charset=x;BASE64,${base64(fixture("gif"))}`, { param: "/p", maxBytes: MB }).declaredMime,
    ).toBe("image/png");
  });

  it("refuses a payload that is not base64-encoded", async () => {
    await refusal(resolve({ type: "data_uri", data_uri: "data:image/png,%89PNG" }), "invalid_media", `${PARAM}/data_uri`);
  });

  it("refuses bad base64", async () => {
    for (const payload of ["@@@@", "abc", "ab=c", "a b c d", ""]) {
      await refusal(
        resolve({ type: "data_uri", data_uri: `data:image/png;base64,${payload}` }),
        "invalid_media",
        `${PARAM}/data_uri`,
      );
    }
    await refusal(resolve({ type: "data_uri", data_uri: "not a data uri" }), "invalid_media", `${PARAM}/data_uri`);
  });

  it("refuses a URI longer than the maximum encoded length, before decoding it", async () => {
    const uri = `data:image/png;base64,${base64(fixture("png"))}`;
    const e = await refusal(
      resolve({ type: "data_uri", data_uri: uri }, { maxEncodedLength: uri.length - 1 }),
      "media_too_large",
      `${PARAM}/data_uri`,
    );
    expect(e.status).toBe(413);
    expect(e.details).toMatchObject({ max_encoded_length: uri.length - 1 });
    await expect(resolve({ type: "data_uri", data_uri: uri }, { maxEncodedLength: uri.length })).resolves.toBeTruthy();
  });

  it("refuses decoded media above the byte limit", async () => {
    const data = fixture("png");
    const uri = `data:image/png;base64,${base64(data)}`;
    const e = await refusal(
      resolve({ type: "data_uri", data_uri: uri }, { maxBytes: data.length - 1 }),
      "media_too_large",
      `${PARAM}/data_uri`,
    );
    expect(e.details).toEqual({ max_bytes: data.length - 1 });
    await expect(resolve({ type: "data_uri", data_uri: uri }, { maxBytes: data.length })).resolves.toBeTruthy();
  });

  it("points media faults at the input", async () => {
    await refusal(
      resolve({ type: "data_uri", data_uri: `data:image/png;base64,${base64(new TextEncoder().encode("hello"))}` }),
      "unsupported_media_type",
      PARAM,
    );
    await refusal(
      resolve({ type: "data_uri", data_uri: `data:image/png;base64,${base64(fixture("png").subarray(0, 40))}` }),
      "invalid_media",
      PARAM,
    );
  });
});

describe("artifacts", () => {
  let ownId: string;
  beforeAll(async () => {
    ownId = await artifactId("task_media_test", 0);
    await putArtifact(env.ARTIFACTS, ownId, fixture("mp4"), {
      tenant_id: "ten_owner",
      task_id: "task_media_test",
      content_type: "video/mp4",
    });
  });

  it("resolves the caller's own artifact", async () => {
    const r = await resolve({ type: "artifact", artifact_id: ownId });
    expect(r.transport).toBe("artifact");
    expect(r.data).toEqual(fixture("mp4"));
    expect(r.probe).toMatchObject({ kind: "video", mime: "video/mp4", width: 640, height: 360, has_audio: true });
    expect(r.encoded_length).toBeUndefined();
  });

  it("answers another tenant's artifact exactly like an unknown one: 404 artifact_not_found", async () => {
    const other = await refusal(
      resolve({ type: "artifact", artifact_id: ownId }, { tenantId: "ten_other" }),
      "artifact_not_found",
      `${PARAM}/artifact_id`,
    );
    expect(other.status).toBe(404);
    const unknown = await refusal(
      resolve({ type: "artifact", artifact_id: await artifactId("task_none", 9) }),
      "artifact_not_found",
      `${PARAM}/artifact_id`,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.message.replace(/'[^']*'/, "")).toBe(other.message.replace(/'[^']*'/, ""));
    await refusal(resolve({ type: "artifact", artifact_id: "../../etc" }), "artifact_not_found", `${PARAM}/artifact_id`);
  });

  it("refuses an artifact above the byte limit", async () => {
    await refusal(
      resolve({ type: "artifact", artifact_id: ownId }, { maxBytes: 100 }),
      "media_too_large",
      `${PARAM}/artifact_id`,
    );
  });
});

describe("URLs", () => {
  it("fetches and probes media from an allowed URL; the server's content type is not what decides", async () => {
    const r = await resolve({ type: "url", url: media("jpeg") });
    expect(r.transport).toBe("url");
    expect(r.data).toEqual(fixture("jpeg"));
    expect(r.probe).toMatchObject({ kind: "image", mime: "image/jpeg", width: 7, height: 5 });
    const fetched = await guardedFetch(media("ogg-opus"), { policy: { allowLoopback: true }, maxBytes: MB, param: "/audio" });
    expect(fetched.contentType).toBe("application/octet-stream");
    expect(fetched.finalUrl).toBe(media("ogg-opus"));
  });

  it("follows redirects, resolving a relative Location against the current URL", async () => {
    const url = media(`redirect?to=${encodeURIComponent("/media/redirect?to=webm")}`);
    const fetched = await guardedFetch(url, { policy: { allowLoopback: true }, maxBytes: MB, param: "/video" });
    expect(fetched.finalUrl).toBe(media("webm"));
    expect(fetched.bytes).toEqual(fixture("webm"));
  });

  it("re-checks every redirect hop: a redirect to a private address is refused as invalid_request", async () => {
    const e = await refusal(resolve({ type: "url", url: media("redirect-private") }), "invalid_request", `${PARAM}/url`);
    expect(e.details).toEqual({
      errors: [{ loc: ["body", "images", 0, "url"], reason: expect.stringMatching(/^redirects to a URL that must use https$/) }],
    });
    const https = await refusal(
      resolve({ type: "url", url: media(`redirect?to=${encodeURIComponent("https://10.0.0.1/x")}`) }),
      "invalid_request",
      `${PARAM}/url`,
    );
    expect((https.details as any).errors[0].reason).toMatch(/private/);
    const metadata = await refusal(
      resolve({ type: "url", url: media(`redirect?to=${encodeURIComponent("https://169.254.169.254/latest")}`) }),
      "invalid_request",
      `${PARAM}/url`,
    );
    expect(metadata.status).toBe(422);
  });

  it("gives up after 5 redirects: the URL must change", async () => {
    const e = await refusal(resolve({ type: "url", url: media("loop") }), "media_fetch_failed", `${PARAM}/url`);
    expect(e.message).toMatch(/redirects/);
    expect(e.details).toEqual({ recovery: CHANGE_INPUT });
    expect(ERROR_CODES.media_fetch_failed.retryable).toBe(true);
  });

  it("reports a 4xx answer as media_fetch_failed that needs another URL, saying so", async () => {
    for (const status of [404, 403, 401, 410]) {
      const e = await refusal(resolve({ type: "url", url: media(`status/${status}`) }), "media_fetch_failed", `${PARAM}/url`);
      expect(e.details).toEqual({ status, recovery: CHANGE_INPUT });
      expect(e.message).toContain(`answered HTTP ${status}`);
      expect(e.message).toMatch(/Give a URL that serves the file/);
      expect(e.message).toMatch(/new Idempotency-Key/);
    }
  });

  it("reports a 5xx, 408 or 429 answer as media_fetch_failed that the same request may retry", async () => {
    for (const status of [500, 502, 503, 408, 429]) {
      const e = await refusal(resolve({ type: "url", url: media(`status/${status}`) }), "media_fetch_failed", `${PARAM}/url`);
      expect(e.details).toEqual({ status, recovery: RETRY });
      expect(e.message).toMatch(/same request may be retried/);
    }
  });

  it("reports a refused connection as media_fetch_failed that the same request may retry", async () => {
    const e = await refusal(resolve({ type: "url", url: "http://127.0.0.1:1/x" }), "media_fetch_failed", `${PARAM}/url`);
    expect(e.details).toEqual({ recovery: RETRY });
    expect(e.message).toMatch(/same request may be retried/);
  });

  it("stops reading a streamed body as soon as it passes the limit: media_too_large", async () => {
    const e = await refusal(resolve({ type: "url", url: media("big") }, { maxBytes: MB }), "media_too_large", `${PARAM}/url`);
    expect(e.status).toBe(413);
    expect(e.details).toEqual({ max_bytes: MB });
  });

  it("refuses a declared Content-Length above the limit", async () => {
    const e = await refusal(
      guardedFetch(media("big-declared"), { policy: { allowLoopback: true }, maxBytes: MB, param: "/v" }),
      "media_too_large",
      "/v",
    );
    expect(e.details).toEqual({ max_bytes: MB });
  });

  it("times out a response that never finishes: media_fetch_failed, retry the same request", async () => {
    const started = Date.now();
    const e = await refusal(
      guardedFetch(media("slow"), { policy: { allowLoopback: true }, maxBytes: MB, timeoutMs: 300, param: "/v" }),
      "media_fetch_failed",
      "/v",
    );
    expect(e.details).toEqual({ recovery: RETRY });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("refuses loopback URLs when the policy does not allow them (the production setting)", async () => {
    const e = await refusal(
      guardedFetch(media("png"), { policy: { allowLoopback: false }, maxBytes: MB, param: "/images/1/url" }),
      "invalid_request",
      "/images/1/url",
    );
    expect(e.details).toEqual({ errors: [{ loc: ["body", "images", 1, "url"], reason: "must use https" }] });
    await refusal(
      guardedFetch("https://localhost/x.png", { policy: { allowLoopback: false }, maxBytes: MB, param: "/u" }),
      "invalid_request",
      "/u",
    );
    await refusal(
      guardedFetch("https://user:pw@example.com/x.png", { policy: { allowLoopback: true }, maxBytes: MB, param: "/u" }),
      "invalid_request",
      "/u",
    );
  });

  it("points the fault of fetched bytes at the input", async () => {
    await refusal(resolve({ type: "url", url: media("status/204") }), "unsupported_media_type", PARAM);
  });
});
