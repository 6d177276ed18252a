/**
 * GET /v1/tasks/{id}: a strong ETag, `If-None-Match` → 304; `Prefer: wait=N` on reads and creates
 * holds the answer until the task is terminal or N seconds have passed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, fastForward, getTask, newKey, waitFor } from "../helpers/tasks";

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
});

const IMAGE = { prompt: "conditional", canvas: { type: "preset", tier: "1K", aspect: "1:1" } };
const read = (id: string, headers: Record<string, string>) => call(`/v1/tasks/${id}`, { key: t.api_key, headers });

/** Two reads in one expiry bucket of the signed URLs; a read that crossed an hour boundary is taken again. */
async function twoReads(id: string) {
  let a = await getTask(t, id);
  let b = await getTask(t, id);
  const expiry = (r: { json: any }) => r.json.output?.artifacts?.[0]?.signed_url_expires_at;
  if (expiry(a) !== expiry(b)) {
    a = b;
    b = await getTask(t, id);
  }
  return [a, b] as const;
}

describe("ETag and If-None-Match", () => {
  it("a finished task reads the same bytes under the same strong ETag; If-None-Match answers 304", async () => {
    const done = await waitFor(t, (await createImage(t, IMAGE)).json.task_id);
    const [a, b] = await twoReads(done.task_id);
    const etag = a.headers.get("etag") as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(b.text).toBe(a.text);
    expect(b.headers.get("etag")).toBe(etag);
    expect(a.headers.get("vary")).toContain("Prefer");

    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, `"a",W/${etag} , "b"`, "*"]) {
      const res = await read(done.task_id, { "If-None-Match": header });
      expect(res.status, header).toBe(304);
      expect(res.text).toBe("");
      expect(res.headers.get("etag")).toBe(etag);
    }
    for (const header of ['"nope"', 'W/"nope", "other"', etag.slice(1, -1), ""]) {
      const res = await read(done.task_id, { "If-None-Match": header });
      expect(res.status, header).toBe(200);
      expect(res.text).toBe(a.text);
    }
  });

  it("a change to the task changes its ETag", async () => {
    const created = await createImage(t, { ...IMAGE, metadata: { sandbox_fault: "stay_queued" } });
    const id = created.json.task_id;
    const before = await getTask(t, id);
    const etag = before.headers.get("etag") as string;
    expect(before.json.status).toBe("queued");
    const canceled = await call(`/v1/tasks/${id}/cancel`, { key: t.api_key, body: {} });
    expect(canceled.json.status).toBe("canceled");
    const after = await read(id, { "If-None-Match": etag });
    expect(after.status).toBe(200);
    expect(after.json.status).toBe("canceled");
    expect(after.headers.get("etag")).not.toBe(etag);
    expect((await read(id, { "If-None-Match": after.headers.get("etag") as string })).status).toBe(304);
  });

  it("another tenant's task is 404 whatever If-None-Match says", async () => {
    const created = await createImage(t, IMAGE);
    const other = await newTenant();
    const res = await call(`/v1/tasks/${created.json.task_id}`, { key: other.api_key, headers: { "If-None-Match": "*" } });
    expectError(res, 404, "task_not_found");
  });
});

describe("Prefer: wait", () => {
  it("a read of a task that ends during the wait answers with the terminal envelope", async () => {
    const created = await createImage(t, { ...IMAGE, metadata: { sandbox_fault: "hang" } });
    const id = created.json.task_id;
    await waitFor(t, id, (x) => x.status === "running");
    const waiting = read(id, { Prefer: "wait=50" });
    await fastForward(id, (rec) => {
      rec.metadata.sandbox_fault = "";
    });
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("succeeded");
    expect(res.headers.get("preference-applied")).toBe("wait=50");
    expect(res.headers.get("vary")).toContain("Prefer");
    expect(res.headers.get("etag")).toBe((await getTask(t, id)).headers.get("etag"));
  });

  it("a read of a task still running when the wait ends answers with it as it is", async () => {
    const created = await createImage(t, { ...IMAGE, metadata: { sandbox_fault: "stay_queued" } });
    const res = await read(created.json.task_id, { Prefer: "wait=1" });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("queued");
    expect(res.headers.get("preference-applied")).toBe("wait=1");
  });

  it("a wait over 60 s counts as 60; a malformed one is ignored; a terminal task answers at once", async () => {
    const done = await waitFor(t, (await createImage(t, IMAGE)).json.task_id);
    const long = await read(done.task_id, { Prefer: "wait=3600" });
    expect(long.status).toBe(200);
    expect(long.headers.get("preference-applied")).toBe("wait=60");
    for (const prefer of ["wait=abc", "wait=-1", "wait=1.5", "wait", "respond-async"]) {
      const res = await read(done.task_id, { Prefer: prefer });
      expect(res.status, prefer).toBe(200);
      expect(res.headers.get("preference-applied"), prefer).toBeNull();
    }
    const quoted = await read(done.task_id, { Prefer: 'respond-async, WAIT="5"; x=y' });
    expect(quoted.headers.get("preference-applied")).toBe("wait=5");
    // Conditional and waiting together: the wait first, then the comparison.
    const unchanged = await read(done.task_id, { Prefer: "wait=5", "If-None-Match": long.headers.get("etag") as string });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get("preference-applied")).toBe("wait=5");
  });

  it("a create with wait answers 202 with the terminal envelope when the task ends in time", async () => {
    const res = await createImage(t, IMAGE, newKey(), { Prefer: "wait=60" });
    expect(res.status, res.text).toBe(202);
    expect(res.json.status).toBe("succeeded");
    expect(res.json.output.artifacts[0].signed_url).toBeTruthy();
    expect(res.headers.get("preference-applied")).toBe("wait=60");
    expect(res.headers.get("vary")).toContain("Prefer");
    // A replay of it waits for nothing and answers the same task.
    const key = newKey();
    const first = await createImage(t, IMAGE, key, { Prefer: "wait=60" });
    const replay = await createImage(t, IMAGE, key, { Prefer: "wait=60" });
    expect(replay.status).toBe(202);
    expect(replay.json.task_id).toBe(first.json.task_id);
    expect(replay.json.status).toBe("succeeded");
  });

  it("a create with wait answers 202 with the task as it is when it has not ended in time", async () => {
    const res = await createImage(t, { ...IMAGE, metadata: { sandbox_fault: "stay_queued" } }, newKey(), { Prefer: "wait=1" });
    expect(res.status, res.text).toBe(202);
    expect(res.json.status).toBe("queued");
    expect(res.headers.get("preference-applied")).toBe("wait=1");
    // Without the preference, nothing says it was applied.
    const plain = await createImage(t, { ...IMAGE, metadata: { sandbox_fault: "stay_queued" } });
    expect(plain.status).toBe(202);
    expect(plain.headers.get("preference-applied")).toBeNull();
  });
});
