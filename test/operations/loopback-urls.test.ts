/**
 * In the local configuration (ALLOW_LOOPBACK_URLS = "true"), http://127.0.0.1 and http://localhost
 * media URLs pass every card's transport check, `https_only` included: each card that takes media
 * admits its minimal request with every input given as such a URL. Any other plain-http URL is
 * still refused. (test/regional/loopback-media.test.ts proves a region refuses them all.)
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { newKey } from "../helpers/tasks";
import { catalogView, held, minimalRequest, PATHS, sourceSeconds } from "./requests";

let t: TestTenant;
let voices: any[];
const cards: { capability: string; card: any }[] = [];

beforeAll(async () => {
  t = await newTenant({ credits: "100000000" });
  const view = await catalogView(t.api_key);
  voices = view.voices;
  for (const [capability, detail] of Object.entries(view.detail))
    for (const card of detail.models) if (card.inputs.length > 0) cards.push({ capability, card });
});

const post = (capability: string, body: unknown) =>
  call(PATHS[capability] as string, { key: t.api_key, body: held(body), headers: { "Idempotency-Key": newKey() } });

/** The test media server under the given loopback host name. */
function mediaUrl(host: "127.0.0.1" | "localhost", path: string): string {
  const url = new URL(`${env.RECEIVER_URL}/media/${path}`);
  url.hostname = host;
  return url.toString();
}

/** The body with every media input (data URI or artifact) replaced by a loopback URL serving the same kind. */
function viaLoopback(value: unknown, card: any, host: "127.0.0.1" | "localhost", counter: { n: number }): unknown {
  if (Array.isArray(value)) return value.map((v) => viaLoopback(v, card, host, counter));
  if (!value || typeof value !== "object") return value;
  const v = value as Record<string, unknown>;
  if (v.type === "data_uri" && String(v.data_uri).startsWith("data:image/")) {
    counter.n++;
    return { type: "url", url: mediaUrl(host, "image/512x512") };
  }
  if (v.type === "artifact") {
    counter.n++;
    return { type: "url", url: mediaUrl(host, `video/${sourceSeconds(card)}`) };
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, viaLoopback(x, card, host, counter)]));
}

describe("loopback media URLs in the local configuration", () => {
  it("every card that takes media admits them over plain http, https_only notwithstanding", async () => {
    expect(env.ALLOW_LOOPBACK_URLS).toBe("true");
    let converted = 0;
    let httpsOnly = 0;
    for (const [i, { capability, card }] of cards.entries()) {
      const host = i % 2 ? "localhost" : "127.0.0.1";
      const counter = { n: 0 };
      const body = viaLoopback(await minimalRequest(capability, card, t.tenant_id, voices), card, host, counter);
      if (counter.n === 0) continue; // the minimal request carries no media (the inputs are optional)
      converted++;
      if (card.inputs.some((input: any) => input.transport.https_only)) httpsOnly++;
      const res = await post(capability, body);
      expect(res.status, `${capability} ${card.model} via ${host}: ${res.text.slice(0, 400)}`).toBe(202);
    }
    expect(converted).toBeGreaterThan(20);
    expect(httpsOnly).toBe(converted);
  });

  it("plain http to any other host is still refused, naming the URL", async () => {
    const card = cards.find((c) => c.capability === "image_to_image")?.card;
    for (const url of ["http://example.com/a.png", "http://10.0.0.1/a.png", "http://[::ffff:127.0.0.1]/a.png"]) {
      const e = expectError(
        await post("image_to_image", { model: card.model, prompt: "x", images: [{ type: "url", url }] }),
        422,
        "invalid_request",
        "/images/0/url",
      );
      expect(e.message).toContain("/images/0/url");
    }
  });
});
