/**
 * A tenant's own provider key serves its live chat calls, as it serves its tasks: `prefer` before
 * the platform's key, `only` instead of it; the upstream receives the tenant's key and never the
 * platform's, the call is charged the BYOK fee instead of the card price, and a key the provider
 * refuses is marked invalid and failed over (or, with `only`, ends the call). gpt-6-luna's route
 * is OpenAI's, served here by the OpenAI fake.
 */
import { describe, expect, it } from "vitest";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { fakeRequests, newTag } from "../providers/harness";
import { addKey, platformAuth, revokeAtProvider, tenantAuth } from "./helpers";

/** A tenant whose key chats and manages provider keys. */
const chatter = () => newTenant({ credits: "1000", permissions: ["chat", "providers:manage"] });

function ask(t: TestTenant, tag: string, extra: Record<string, unknown> = {}) {
  return call("/v1/chat/completions", {
    key: t.api_key,
    body: { model: "gpt-6-luna", messages: [{ role: "user", content: `Say hello #tag:${tag}` }], ...extra },
  });
}

describe("tenants' own provider keys on chat", () => {
  it("prefer: the tenant's key reaches the upstream, the platform's does not, and the call is charged the fee", async () => {
    const t = await chatter();
    const platformTag = newTag("byok-chat-plat");
    const onPlatform = await ask(t, platformTag);
    expect(onPlatform.status, onPlatform.text).toBe(200);
    expect(onPlatform.headers.get("x-provider")).toBe("openai");
    const key = await addKey(t, "openai", { mode: "prefer" });
    // A prompt of the same length as the first, so that the two calls' usage is the same.
    const tag = platformTag.replace("byok-chat-plat", "byok-chat-pref");
    const res = await ask(t, tag);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("x-provider")).toBe("openai");
    const sent = await fakeRequests("openai", tag);
    expect(sent.map((r) => r.authorization)).toEqual([tenantAuth("openai", key)]);
    expect((await fakeRequests("openai", platformTag)).map((r) => r.authorization)).toEqual([platformAuth("openai")]);
    // The same answer's usage costs the fee (5 % here) of what the platform's key costs.
    const fee = Number(res.headers.get("x-credits-charged"));
    const full = Number(onPlatform.headers.get("x-credits-charged"));
    expect(full).toBeGreaterThan(0);
    expect(fee).toBeLessThan(full);
    expect(fee).toBeCloseTo(full * 0.05, 6);
  });

  it("a refused key fails over to the platform's route with prefer, and ends the call with only", async () => {
    const t = await chatter();
    const key = await addKey(t, "openai", { mode: "prefer" });
    await revokeAtProvider("openai", key);
    const tag = newTag("byok-chat-refused");
    const res = await ask(t, tag);
    expect(res.status, res.text).toBe(200);
    // The fake records only what it accepted: the refused call on the tenant's key is not there; the platform's is.
    expect((await fakeRequests("openai", tag)).map((r) => r.authorization)).toEqual([platformAuth("openai")]);
    expect(res.headers.get("x-provider")).toBe("openai");
    const keys = await call("/v1/provider-keys", { key: t.api_key });
    expect(keys.json.data.find((k: any) => k.provider === "openai")?.status).toBe("invalid");

    const other = await chatter();
    const only = await addKey(other, "openai", { mode: "only" });
    await revokeAtProvider("openai", only);
    const onlyTag = newTag("byok-chat-only");
    const ended = await ask(other, onlyTag);
    expect(ended.status, ended.text).toBe(502);
    expect(ended.json.error).toMatchObject({ code: "model_request_failed", details: { reason: "provider_key_rejected" } });
    // Nothing reached the upstream on the platform's key.
    expect(await fakeRequests("openai", onlyTag)).toEqual([]);
  });
});
