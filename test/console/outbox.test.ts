/** The local outbox: `GET /admin/v1/outbox`, operator only, newest first. */
import { describe, expect, it } from "vitest";
import { admin, call, expectError } from "../helpers/api";
import { askCode, freshEmail, tenantWithOwner } from "../helpers/console";

describe("GET /admin/v1/outbox", () => {
  it("lists the mail kept instead of sent, newest first, with to, subject, text and created_at", async () => {
    const email = freshEmail("outbox");
    await tenantWithOwner(email);
    const b = await askCode(email);
    await b.post("/console/sign-in", { email });
    // The second code is mailed after its answer.
    const listed = async () => (await admin(`/admin/v1/outbox?to=${encodeURIComponent(email)}`)).json.data.length;
    await expect.poll(listed).toBe(2);
    const res = await admin(`/admin/v1/outbox?to=${encodeURIComponent(email)}`);
    expect(res.status).toBe(200);
    expect(res.json.object).toBe("list");
    expect(res.json.data).toHaveLength(2);
    const [newest, older] = res.json.data;
    expect(Object.keys(newest).sort()).toEqual(["created_at", "id", "subject", "text", "to"]);
    expect(newest.to).toBe(email);
    expect(newest.subject).toMatch(/^Your sign-in code: \d{6}$/);
    expect(newest.text).toContain(newest.subject.slice(-6));
    expect(newest.id).not.toBe(older.id);
    expect(newest.created_at >= older.created_at).toBe(true);
    const all = await admin("/admin/v1/outbox?limit=1");
    expect(all.json.data).toHaveLength(1);
    expect(all.json.data[0].id).toBe(newest.id);
  });

  it("needs the operator token, and validates its query", async () => {
    expectError(await call("/admin/v1/outbox"), 401, "unauthorized");
    expectError(await call("/admin/v1/outbox", { key: "not-the-operator-token-at-all" }), 401, "invalid_api_key");
    expectError(await admin("/admin/v1/outbox?limit=0"), 422, "invalid_request");
  });
});
