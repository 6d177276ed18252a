/**
 * A provider key echoed back by an upstream is redacted in every form it may take: as it is,
 * URL-encoded (both styles), JSON-escaped, base64 (standard and url-safe, padded or not, alone or
 * inside a `Basic` credential), and any run of 8 or more of its characters. The media adapters'
 * messages (safeProviderMessage) and the chat errors (safeMessage) go through the same function.
 */
import { describe, expect, it } from "vitest";
import type { ProviderAdapter } from "../../src/providers/adapter";
import { fromUpstreamStatus, safeMessage } from "../../src/providers/chat-errors";
import { redactSecrets, safeProviderMessage } from "../../src/providers/messages";
import { redactingAdapter } from "../../src/providers/redacting";
import { ProviderError } from "../../src/providers/types";

// Characters that every encoding changes: + / = and a space-free run of letters and digits.
const KEY = "sk_live_Ab3+x/Yz9=Qw7Er5Ty2Ui8Op4As6Df1Gh0";

const b64 = (s: string) => btoa(s);
const b64url = (s: string) => btoa(s).replace(/\+/g, "-").replace(/\//g, "_");

/** The key's forms, each as an upstream might echo it. */
const FORMS: Record<string, string> = {
  plain: KEY,
  encodeURIComponent: encodeURIComponent(KEY),
  "percent-encoding, lower-case hex": encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  "form encoding": new URLSearchParams({ key: KEY }).toString().slice(4),
  "JSON-escaped": JSON.stringify(KEY).slice(1, -1),
  "JSON-escaped slashes": JSON.stringify(KEY).slice(1, -1).replace(/\//g, "\\/"),
  "JSON unicode escapes": [...KEY]
    .map((c) => (/[A-Za-z0-9]/.test(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))
    .join(""),
  "base64, padded": b64(KEY),
  "base64, unpadded": b64(KEY).replace(/=+$/, ""),
  "base64url, padded": b64url(KEY),
  "base64url, unpadded": b64url(KEY).replace(/=+$/, ""),
  "Basic credential of user:key": `Basic ${b64(`user:${KEY}`)}`,
  "Basic credential of a longer user:key, url-safe": `Basic ${b64url(`someone@example.com:${KEY}`).replace(/=+$/, "")}`,
  "base64 of the key inside a longer token": b64(`{"u":"x","k":"${KEY}","exp":1}`),
  "a run of 8 characters": KEY.slice(12, 20),
  "a truncated key": `${KEY.slice(0, 20)}…`,
  "a run of the URL-encoded key": encodeURIComponent(KEY).slice(10, 24),
};

/** What must not survive: the key, every run of 8 of its characters, and each form above. */
function leaks(out: string, form: string): string[] {
  const found: string[] = [];
  if (out.includes(form)) found.push(form);
  for (let i = 0; i + 8 <= KEY.length; i++) if (out.includes(KEY.slice(i, i + 8))) found.push(KEY.slice(i, i + 8));
  return found;
}

describe("redactSecrets", () => {
  for (const [name, form] of Object.entries(FORMS)) {
    it(`redacts the key ${name}`, () => {
      const text = `401: bad key ${form} (request 12)`;
      const out = redactSecrets(text, [KEY]);
      expect(leaks(out, form), out).toEqual([]);
      expect(out).toContain("[redacted]");
      expect(out.startsWith("401: bad key ")).toBe(true);
      expect(out.endsWith(" (request 12)")).toBe(true);
    });
  }

  it("leaves text without the key as it is, and short secrets to their exact form", () => {
    const text = "401: the key you sent is not valid for model flux-pro (see https://docs.example.com/errors)";
    expect(redactSecrets(text, [KEY])).toBe(text);
    expect(redactSecrets("abcd and abc", ["abcd"])).toBe("[redacted] and abc");
    expect(redactSecrets(text, [undefined, ""])).toBe(text);
  });

  it("redacts several secrets at once (the platform's key and a tenant's)", () => {
    const tenant = "tenant-fal-3k2j9xQ+/zz";
    const out = redactSecrets(`a ${encodeURIComponent(KEY)} b ${b64(`me:${tenant}`)} c`, [KEY, tenant]);
    expect(out).toBe("a [redacted] b [redacted] c");
  });
});

describe("the media and chat messages use it", () => {
  it("safeProviderMessage", () => {
    const out = safeProviderMessage(`401: bad key ${encodeURIComponent(KEY)} or ${b64(`api:${KEY}`)}`, [KEY]);
    expect(leaks(out, encodeURIComponent(KEY))).toEqual([]);
    expect(out).not.toContain(b64(`api:${KEY}`));
  });

  it("safeMessage and the chat errors built from an upstream's body", () => {
    expect(safeMessage(`denied for ${JSON.stringify(KEY).slice(1, -1).replace(/\//g, "\\/")}`, KEY)).toBe(
      "denied for [redacted]",
    );
    const e = fromUpstreamStatus(
      400,
      JSON.stringify({ error: { message: `bad key ${encodeURIComponent(KEY)}` } }),
      undefined,
      KEY,
    );
    expect(e.message).not.toContain(encodeURIComponent(KEY));
    expect(leaks(e.message, encodeURIComponent(KEY))).toEqual([]);
  });
});

describe("the task runner's adapter", () => {
  it("cuts the route's key out of every failure and status an adapter lets through, whatever the adapter did", async () => {
    const raw = {
      name: "leaky",
      submit: async () => {
        throw new ProviderError("model_request_failed", `401: bad key ${encodeURIComponent(KEY)}`);
      },
      poll: async () => ({
        state: "failed" as const,
        error: { code: "model_request_failed" as const, message: `as ${b64(`u:${KEY}`)}` },
      }),
      fetchResult: async () => {
        throw new Error(`GET https://x.test/out?k=${KEY.slice(5, 30)} failed`);
      },
      cancel: async () => "canceled" as const,
    } as unknown as ProviderAdapter;
    const adapter = redactingAdapter(raw, [KEY]);
    const job = {} as never;
    const ctx = {} as never;
    const submitted = await adapter.submit(job, ctx).catch((e: unknown) => e);
    expect(submitted).toBeInstanceOf(ProviderError);
    expect((submitted as ProviderError).message).toBe("401: bad key [redacted]");
    const polled = await adapter.poll({} as never, job, ctx);
    expect(polled).toEqual({ state: "failed", error: { code: "model_request_failed", message: "as [redacted]" } });
    const fetched = (await adapter.fetchResult({} as never, job, ctx).catch((e: unknown) => e)) as Error;
    expect(fetched.message).toBe("GET https://x.test/out?k=[redacted] failed");
    expect(await adapter.cancel({} as never, job, ctx)).toBe("canceled");
    expect(adapter.name).toBe("leaky");
  });
});
