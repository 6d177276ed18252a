/**
 * Rotating a callback signing key: the new secret signs at once; during the overlap each delivery
 * carries both signatures in `webhook-signature` (space-separated, as Standard Webhooks allows),
 * so a receiver holding either secret verifies it; after the overlap only the new secret does.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { accountFor } from "../../src/accounts/account-stub";
import { signatureHeaders } from "../../src/webhooks/callback-signing";
import { admin, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, waitFor } from "../helpers/tasks";

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
});

async function newSigningKey(): Promise<{ id: string; secret: string }> {
  const res = await admin(`/admin/v1/tenants/${t.tenant_id}/callback-signing-keys`, {});
  expect(res.status).toBe(201);
  return res.json;
}

/** What a delivery made now would carry, signed with the secrets the account hands out. */
async function signedNow(id: string, body = '{"task_id":"task_x","status":"succeeded"}') {
  const key = await accountFor(env, t.tenant_id).signingKey(id);
  if (!key) throw new Error("no key");
  const headers = signatureHeaders(key.secrets, "msg_test", Math.floor(Date.now() / 1000), body);
  return { headers, body, secrets: key.secrets };
}

function verifies(secret: string, d: { headers: Record<string, string>; body: string }): boolean {
  try {
    new Webhook(secret).verify(d.body, d.headers);
    return true;
  } catch {
    return false;
  }
}

/** Ends a running overlap as if its time had passed. */
async function endOverlap(id: string) {
  await runInDurableObject(accountFor(env, t.tenant_id) as DurableObjectStub<AccountObject>, (_o, state) => {
    state.storage.sql.exec("UPDATE signing_keys SET previous_until = ? WHERE id = ?", new Date(Date.now() - 1).toISOString(), id);
  });
}

describe("signing key rotation", () => {
  it("during the overlap both secrets verify; after it, only the new one", async () => {
    const key = await newSigningKey();
    const res = await admin(`/admin/v1/callback-signing-keys/${key.id}/rotate`, { overlap: "1h" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: key.id, status: "active" });
    expect(res.json.secret).toMatch(/^whsec_/);
    expect(res.json.secret).not.toBe(key.secret);
    expect(Date.parse(res.json.previous_valid_until) - Date.parse(res.json.rotated_at)).toBe(3_600_000);

    const during = await signedNow(key.id);
    expect(during.secrets).toEqual([res.json.secret, key.secret]);
    const sigs = during.headers["webhook-signature"]?.split(" ") ?? [];
    expect(sigs).toHaveLength(2);
    for (const s of sigs) expect(s).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifies(res.json.secret, during)).toBe(true);
    expect(verifies(key.secret, during)).toBe(true);
    expect(verifies("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", during)).toBe(false);

    await endOverlap(key.id);
    const after = await signedNow(key.id);
    expect(after.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
    expect(verifies(res.json.secret, after)).toBe(true);
    expect(verifies(key.secret, after)).toBe(false);
    const state = await accountFor(env, t.tenant_id).signingKeyState(key.id);
    expect(state?.previous_valid_until).toBeNull();
  });

  it("a real delivery during the overlap carries both signatures", async () => {
    const key = await newSigningKey();
    const rotated = (await admin(`/admin/v1/callback-signing-keys/${key.id}/rotate`, { overlap: "24h" })).json;
    const name = `rotation-${Date.now()}`;
    const url = `${env.RECEIVER_URL}/hook/ok/${name}`;
    const created = await createImage(t, { prompt: "signed twice", callback_url: url, callback_signing_key_id: key.id });
    expect(created.status, created.text).toBe(202);
    await waitFor(t, created.json.task_id, (x) => x.callback?.status === "delivered");
    const [d] = (await (await fetch(`${env.RECEIVER_URL}/deliveries/${name}`)).json()) as {
      headers: Record<string, string>;
      body: string;
    }[];
    const delivery = {
      body: d?.body as string,
      headers: {
        "webhook-id": d?.headers["webhook-id"] as string,
        "webhook-timestamp": d?.headers["webhook-timestamp"] as string,
        "webhook-signature": d?.headers["webhook-signature"] as string,
      },
    };
    expect(delivery.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(verifies(rotated.secret, delivery)).toBe(true);
    expect(verifies(key.secret, delivery)).toBe(true);
  });

  it("overlap none: the previous secret stops signing at once", async () => {
    const key = await newSigningKey();
    const res = await admin(`/admin/v1/callback-signing-keys/${key.id}/rotate`, { overlap: "none" });
    expect(res.json.previous_valid_until).toBeNull();
    const d = await signedNow(key.id);
    expect(verifies(res.json.secret, d)).toBe(true);
    expect(verifies(key.secret, d)).toBe(false);
  });

  it("a second rotation during an overlap keeps two secrets: the newest and the one before it", async () => {
    const key = await newSigningKey();
    const first = (await admin(`/admin/v1/callback-signing-keys/${key.id}/rotate`, { overlap: "7d" })).json;
    const second = (await admin(`/admin/v1/callback-signing-keys/${key.id}/rotate`, { overlap: "1h" })).json;
    const d = await signedNow(key.id);
    expect(d.secrets).toEqual([second.secret, first.secret]);
    expect(verifies(key.secret, d)).toBe(false);
  });

  it("defaults to a 24 h overlap without a body, and refuses retired, unknown and malformed requests", async () => {
    const key = await newSigningKey();
    const res = await admin(`/admin/v1/callback-signing-keys/${key.id}/rotate`, undefined, "POST");
    expect(res.status, res.text).toBe(200);
    expect(Date.parse(res.json.previous_valid_until) - Date.parse(res.json.rotated_at)).toBe(86_400_000);
    expectError(
      await admin(`/admin/v1/callback-signing-keys/${key.id}/rotate`, { overlap: "2d" }),
      422,
      "invalid_request",
      "/overlap",
    );
    expect((await admin(`/admin/v1/callback-signing-keys/${key.id}/retire`, {})).status).toBe(200);
    expectError(await admin(`/admin/v1/callback-signing-keys/${key.id}/rotate`, {}), 422, "callback_signing_key_inactive");
    expectError(await admin("/admin/v1/callback-signing-keys/whk_unknown/rotate", {}), 404, "callback_signing_key_not_found");
  });
});
