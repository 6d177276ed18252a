/**
 * Answers that serve stored bytes (an output through its owner's URL or its signed link, an input
 * read by an upstream, a voice preview) carry the hardening headers; a signed link altered in any
 * part of its query is the one 404; a deleted output stays in its task's envelope without URLs.
 */
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { signInputUrl } from "../../src/media/signed-inputs";
import { BASE, call, expectError, newTenant, readResponse, send, type TestTenant } from "../helpers/api";
import { createImage, getTask, waitFor } from "../helpers/tasks";

let t: TestTenant;
let task: any;
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
  const created = await createImage(t, {
    prompt: "two lanterns",
    count: 2,
    canvas: { type: "preset", tier: "1K", aspect: "1:1" },
  });
  task = await waitFor(t, created.json.task_id);
  expect(task.status).toBe("succeeded");
});

const owner = (path: string, init: RequestInit = {}) =>
  exports.default
    .fetch(new Request(`${BASE}${path}`, { ...init, headers: { ...init.headers, Authorization: `Bearer ${t.api_key}` } }))
    .then(readResponse);
const open = (url: string, init: RequestInit = {}) => exports.default.fetch(new Request(url, init)).then(readResponse);

function expectHardened(res: { status: number; headers: Headers }, what: string) {
  expect(res.headers.get("x-content-type-options"), what).toBe("nosniff");
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp, what).toContain("sandbox");
  expect(csp, what).toContain("default-src 'none'");
}

describe("stored bytes", () => {
  it("every route that serves them sends nosniff, a sandboxing policy and, for artifacts, a file name", async () => {
    const a = task.output.artifacts[0];
    const answers = {
      "owner download": await owner(`/v1/artifacts/${a.artifact_id}`),
      "owner range": await owner(`/v1/artifacts/${a.artifact_id}`, { headers: { Range: "bytes=0-9" } }),
      "signed link": await open(a.signed_url),
      "signed link range": await open(a.signed_url, { headers: { Range: "bytes=0-9" } }),
      "signed link HEAD": await open(a.signed_url, { method: "HEAD" }),
    };
    for (const [what, res] of Object.entries(answers)) {
      expect(res.status, what).toBeLessThan(300);
      expectHardened(res, what);
      expect(res.headers.get("content-disposition"), what).toBe(`inline; filename="${a.artifact_id}.png"`);
    }

    await env.ARTIFACTS.put("inputs/stored-bytes-test", new Uint8Array([0x3c, 0x68, 0x74, 0x6d, 0x6c, 0x3e]), {
      httpMetadata: { contentType: "text/plain" },
    });
    const input = await open(await signInputUrl(env, BASE, "inputs/stored-bytes-test"));
    expect(input.status).toBe(200);
    expectHardened(input, "input URL");

    const voice = (await call("/v1/voices", { key: t.api_key })).json.data[0];
    const preview = await open(`${BASE}/voices/${voice.voice_id}/preview`);
    expect(preview.status).toBe(200);
    expectHardened(preview, "voice preview");
  });
});

describe("signed links", () => {
  it("a duplicated, extra, empty or malformed query parameter is the same 404 as any altered link", async () => {
    const a = task.output.artifacts[0];
    const url = new URL(a.signed_url);
    const expires = url.searchParams.get("expires") as string;
    const sig = url.searchParams.get("sig") as string;
    const path = `${BASE}${url.pathname}`;
    const altered = await open(`${path}?expires=${expires}&sig=${"0".repeat(64)}`);
    const message = expectError(altered, 404, "artifact_not_found").message;
    const variants = [
      `${a.signed_url}&sig=${sig}`,
      `${a.signed_url}&expires=${expires}`,
      `${path}?sig=${sig}&sig=${sig}&expires=${expires}`,
      `${a.signed_url}&download=1`,
      `${a.signed_url}&`.replace(/&$/, "&x"),
      `${a.signed_url}&sig`,
      `${path}?expires=${expires}&sig=`,
      `${path}?expires=&sig=${sig}`,
      `${path}?expires=${expires}&sig=${sig}%zz`,
      `${path}?expires=${expires}&sig[]=${sig}`,
      `${path}?expires=${expires}&SIG=${sig}`,
      `${path}?${"expires=1&".repeat(200)}sig=${sig}`,
    ];
    for (const v of variants) {
      const res = await open(v);
      expect(expectError(res, 404, "artifact_not_found").message, v).toBe(message);
    }
    // The link as signed still opens.
    expect((await open(a.signed_url)).status).toBe(200);
  });
});

describe("a deleted output", () => {
  it("shows in its task with deleted: true and no URL, everywhere the envelope shows", async () => {
    const created = await createImage(t, {
      prompt: "to delete",
      count: 2,
      canvas: { type: "preset", tier: "1K", aspect: "1:1" },
    });
    const done = await waitFor(t, created.json.task_id);
    const [gone, kept] = done.output.artifacts;
    const del = await owner(`/v1/artifacts/${gone.artifact_id}`, { method: "DELETE" });
    expect(del.status, del.text).toBe(200);

    const read = (await getTask(t, done.task_id)).json;
    const assets = (await call(`/v1/tasks/${done.task_id}/assets`, { key: t.api_key })).json.data;
    const listed = (await call("/v1/tasks?limit=100", { key: t.api_key })).json.data.find((x: any) => x.task_id === done.task_id);
    const canceled = (await call(`/v1/tasks/${done.task_id}/cancel`, { key: t.api_key, method: "POST" })).json;
    for (const [where, list] of [
      ["read artifacts", read.output.artifacts],
      ["read images", read.output.images],
      ["assets", assets],
      ["listing", listed.output.artifacts],
      ["cancel", canceled.output.artifacts],
    ] as const) {
      const shown = list.find((x: any) => x.artifact_id === gone.artifact_id);
      expect(shown, where).toMatchObject({ artifact_id: gone.artifact_id, deleted: true, index: gone.index });
      expect(shown, where).not.toHaveProperty("url");
      expect(shown, where).not.toHaveProperty("signed_url");
      expect(shown, where).not.toHaveProperty("signed_url_expires_at");
      const other = list.find((x: any) => x.artifact_id === kept.artifact_id);
      expect(other.signed_url, where).toMatch(/\/files\//);
      expect(other, where).not.toHaveProperty("deleted");
    }
    // The old URLs answer like any unknown artifact.
    expectError(await open(gone.signed_url), 404, "artifact_not_found");
    expectError(await owner(`/v1/artifacts/${gone.artifact_id}`), 404, "artifact_not_found");
    expectError(await owner(`/v1/artifacts/${gone.artifact_id}`, { method: "DELETE" }), 404, "artifact_not_found");
    expect((await open(kept.signed_url)).status).toBe(200);
  });

  it("an upload (no task) deletes as before", async () => {
    const png = (await send(new Request(task.output.artifacts[1].signed_url))).bytes;
    const up = await owner("/v1/uploads", { method: "POST", body: png, headers: { "Content-Type": "image/png" } });
    expect(up.status, up.text).toBe(201);
    expect((await owner(`/v1/artifacts/${up.json.artifact_id}`, { method: "DELETE" })).json).toEqual({
      object: "artifact",
      artifact_id: up.json.artifact_id,
      deleted: true,
    });
  });
});
