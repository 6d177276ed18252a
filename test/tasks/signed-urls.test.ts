/**
 * Signed output URLs: every output artifact carries a `signed_url` that serves the same bytes as
 * the owner's download without an API key, byte ranges included, until `signed_url_expires_at`;
 * an altered, expired, foreign or deleted one is the same 404 `artifact_not_found`.
 */
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { artifactKey } from "../../src/media/artifacts";
import { signInputUrl } from "../../src/media/signed-inputs";
import {
  OUTPUT_URL_BUCKET_SECONDS,
  OUTPUT_URL_TTL_SECONDS,
  OutputUrlSigner,
  outputUrlExpiry,
  signOutputUrl,
  verifyOutputUrl,
} from "../../src/media/signed-outputs";
import { BASE, call, expectError, newTenant, send, type TestTenant } from "../helpers/api";
import { createImage, getTask, waitFor } from "../helpers/tasks";

let t: TestTenant;
let done: any;
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
  const created = await createImage(t, { prompt: "a signed fox", canvas: { type: "preset", tier: "1K", aspect: "1:1" } });
  done = await waitFor(t, created.json.task_id);
  expect(done.status).toBe("succeeded");
});

/** A request with no API key at all, as a browser or a player makes it. */
function fetchPublic(url: string, headers: Record<string, string> = {}) {
  return send(new Request(url, { headers }));
}

async function download(path: string) {
  const res = await exports.default.fetch(new Request(`${BASE}${path}`, { headers: { Authorization: `Bearer ${t.api_key}` } }));
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const withQuery = (url: string, patch: Record<string, string | null>) => {
  const u = new URL(url);
  for (const [k, v] of Object.entries(patch)) v === null ? u.searchParams.delete(k) : u.searchParams.set(k, v);
  return u.toString();
};

describe("signed output URLs", () => {
  it("every artifact carries a signed URL and its expiry, at least 24 hours ahead", () => {
    const before = Date.now();
    for (const list of [done.output.artifacts, done.output.images]) {
      for (const a of list) {
        expect(a.signed_url).toMatch(new RegExp(`^${BASE}/files/${a.artifact_id}\\?expires=\\d+&sig=[0-9a-f]{64}$`));
        const expires = Number(new URL(a.signed_url).searchParams.get("expires"));
        expect(a.signed_url_expires_at).toBe(new Date(expires * 1000).toISOString());
        expect(expires * 1000 - before).toBeGreaterThan((OUTPUT_URL_TTL_SECONDS - 60) * 1000);
        expect(expires * 1000 - before).toBeLessThanOrEqual((OUTPUT_URL_TTL_SECONDS + OUTPUT_URL_BUCKET_SECONDS) * 1000);
        expect(a.url).toBe(`${BASE}/v1/artifacts/${a.artifact_id}`);
      }
    }
  });

  it("serves the same bytes and type as the owner's download, without a key, with ranges", async () => {
    const a = done.output.artifacts[0];
    const owner = await download(`/v1/artifacts/${a.artifact_id}`);
    expect(owner.status).toBe(200);
    const open = await fetchPublic(a.signed_url);
    expect(open.status).toBe(200);
    expect(open.bytes).toEqual(owner.bytes);
    expect(open.headers.get("content-type")).toBe(owner.headers.get("content-type"));
    expect(open.headers.get("content-length")).toBe(String(a.bytes));
    expect(open.headers.get("accept-ranges")).toBe("bytes");
    // Never cached past the link's own end, and never by a shared cache.
    const cache = open.headers.get("cache-control") ?? "";
    expect(cache).toMatch(/^private, max-age=\d+$/);
    const expires = Number(new URL(a.signed_url).searchParams.get("expires"));
    expect(Number(/max-age=(\d+)/.exec(cache)?.[1])).toBeLessThanOrEqual(expires - Math.floor(Date.now() / 1000) + 1);

    const head = await exports.default.fetch(new Request(a.signed_url, { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(a.bytes));
    expect((await head.arrayBuffer()).byteLength).toBe(0);

    const part = await fetchPublic(a.signed_url, { Range: "bytes=2-9" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 2-9/${a.bytes}`);
    expect(part.bytes).toEqual(owner.bytes.slice(2, 10));
    const beyond = await fetchPublic(a.signed_url, { Range: `bytes=${a.bytes}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${a.bytes}`);
  });

  it("an altered, expired or foreign link is the same 404 artifact_not_found", async () => {
    const a = done.output.artifacts[0];
    const sig = new URL(a.signed_url).searchParams.get("sig") as string;
    const expires = new URL(a.signed_url).searchParams.get("expires") as string;
    const other = await waitFor(
      t,
      (await createImage(t, { prompt: "another", canvas: { type: "preset", tier: "1K", aspect: "1:1" } })).json.task_id,
    );
    const otherId = other.output.artifacts[0].artifact_id;
    const flipped = `${sig.slice(0, -1)}${sig.endsWith("0") ? "1" : "0"}`;
    const pastExpiry = Math.floor(Date.now() / 1000) - 60;
    const bad = [
      withQuery(a.signed_url, { sig: flipped }),
      withQuery(a.signed_url, { sig: null }),
      withQuery(a.signed_url, { expires: null }),
      withQuery(a.signed_url, { expires: String(Number(expires) + 3600) }),
      withQuery(a.signed_url, { sig: sig.toUpperCase() }),
      a.signed_url.replace(a.artifact_id, otherId),
      `${BASE}/files/art_nope?expires=${expires}&sig=${sig}`,
      // Signed correctly, but its time is over.
      await signOutputUrl(env, BASE, a.artifact_id, pastExpiry),
      // An input URL's signature names an R2 key under another key: it cannot open an output.
      withQuery(
        a.signed_url,
        Object.fromEntries(new URL(await signInputUrl(env, BASE, artifactKey(a.artifact_id))).searchParams),
      ),
    ];
    const messages = new Set<string>();
    for (const url of bad) {
      const res = await fetchPublic(url);
      expect(res.status, url).toBe(404);
      const e = expectError(res, 404, "artifact_not_found");
      messages.add(e.message);
      expect(res.bytes.byteLength).toBeLessThan(1000);
    }
    // One message for every failure: nothing tells an altered link from an expired one.
    expect(messages.size).toBe(1);
    // An output URL's signature does not open the input route either.
    const asInput = await fetchPublic(
      `${BASE}/inputs/${btoa(artifactKey(a.artifact_id)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")}?expires=${expires}&sig=${sig}`,
    );
    expect(asInput.status).toBe(403);
  });

  it("a deleted artifact's link answers exactly like an altered one", async () => {
    const created = await createImage(t, { prompt: "to delete", canvas: { type: "preset", tier: "1K", aspect: "1:1" } });
    const task = await waitFor(t, created.json.task_id);
    const a = task.output.artifacts[0];
    expect((await fetchPublic(a.signed_url)).status).toBe(200);
    await env.ARTIFACTS.delete(artifactKey(a.artifact_id));
    const gone = await fetchPublic(a.signed_url);
    const altered = await fetchPublic(withQuery(a.signed_url, { sig: "0".repeat(64) }));
    expect(expectError(gone, 404, "artifact_not_found").message).toBe(expectError(altered, 404, "artifact_not_found").message);
  });

  it("the task read, the listing, the assets and cancel of a finished task carry the same signed URLs", async () => {
    const read = (await getTask(t, done.task_id)).json;
    const a = read.output.artifacts[0];
    const assets = await call(`/v1/tasks/${done.task_id}/assets`, { key: t.api_key });
    expect(assets.json.data[0].signed_url).toBe(a.signed_url);
    const list = await call("/v1/tasks?limit=100", { key: t.api_key });
    expect(list.json.data.find((x: any) => x.task_id === done.task_id).output.artifacts[0].signed_url).toBe(a.signed_url);
    const cancel = await call(`/v1/tasks/${done.task_id}/cancel`, { key: t.api_key, body: {} });
    expect(cancel.status).toBe(200);
    expect(cancel.json.output.artifacts[0].signed_url).toBe(a.signed_url);
  });

  it("a callback's envelope carries signed URLs that work", async () => {
    const name = `signed-${Date.now()}`;
    const created = await createImage(t, {
      prompt: "called back",
      canvas: { type: "preset", tier: "1K", aspect: "1:1" },
      callback_url: `${env.RECEIVER_URL}/hook/ok/${name}`,
    });
    await waitFor(t, created.json.task_id, (x) => x.callback?.status === "delivered");
    const [delivery] = (await (await fetch(`${env.RECEIVER_URL}/deliveries/${name}`)).json()) as { body: string }[];
    const a = JSON.parse(delivery?.body as string).output.artifacts[0];
    expect(a.signed_url_expires_at).toBeTruthy();
    expect((await fetchPublic(a.signed_url)).status).toBe(200);
  });

  it("the OpenAPI document describes the artifact and the public route", async () => {
    const doc = (await call("/openapi.json")).json;
    const artifact = doc.components.schemas.Artifact;
    for (const field of ["artifact_id", "url", "signed_url", "signed_url_expires_at", "content_type", "bytes"])
      expect(artifact.properties, field).toHaveProperty(field);
    const op = doc.paths["/files/{artifact_id}"].get;
    expect(op.operationId).toBe("downloadSignedArtifact");
    expect(op.security).toEqual([]);
  });
});

describe("signing (unit)", () => {
  it("rounds expiries up to the end of the hour, then adds 24 hours", () => {
    const hour = 3_600_000;
    const start = Date.UTC(2026, 0, 1, 10, 0, 0);
    const end = (Date.UTC(2026, 0, 1, 11, 0, 0) + OUTPUT_URL_TTL_SECONDS * 1000) / 1000;
    expect(outputUrlExpiry(start)).toBe(end);
    expect(outputUrlExpiry(start + hour - 1)).toBe(end);
    expect(outputUrlExpiry(start + hour)).toBe(end + 3600);
  });

  it("verifies what it signed until the expiry, and nothing else", async () => {
    const id = `art_${"ab".repeat(16)}`;
    const expires = 2_000_000_000;
    const url = new URL(await signOutputUrl(env, BASE, id, expires));
    const sig = url.searchParams.get("sig") as string;
    expect(await verifyOutputUrl(env, id, String(expires), sig, expires * 1000 - 1)).toBe(expires);
    expect(await verifyOutputUrl(env, id, String(expires), sig, expires * 1000)).toBeNull();
    expect(await verifyOutputUrl(env, id, String(expires - 1), sig, 0)).toBeNull();
    expect(await verifyOutputUrl(env, `art_${"cd".repeat(16)}`, String(expires), sig, 0)).toBeNull();
    expect(
      await verifyOutputUrl({ ...env, ADMIN_TOKEN: "another-admin-token-0123456789" }, id, String(expires), sig, 0),
    ).toBeNull();
  });

  it("signs the same output identically within an hour and anew in the next", async () => {
    let now = Date.UTC(2026, 0, 1, 10, 5, 0);
    const signer = new OutputUrlSigner(env, () => now);
    const output = { artifacts: [{ artifact_id: `art_${"12".repeat(16)}`, url: "x" }], text: "t" };
    const first = await signer.sign(output, BASE);
    now += 50 * 60_000;
    expect(JSON.stringify(await signer.sign(output, BASE))).toBe(JSON.stringify(first));
    now += 10 * 60_000;
    const next = (await signer.sign(output, BASE)) as any;
    expect(next.artifacts[0].signed_url_expires_at).not.toBe((first as any).artifacts[0].signed_url_expires_at);
    expect(Date.parse(next.artifacts[0].signed_url_expires_at) - now).toBeGreaterThanOrEqual(OUTPUT_URL_TTL_SECONDS * 1000);
    // Nothing to sign: the output as it was.
    const text = { text: "only words" };
    expect(await signer.sign(text, BASE)).toBe(text);
  });
});
