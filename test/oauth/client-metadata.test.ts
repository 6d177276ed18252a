/**
 * Client ID metadata documents: a client_id that is an https URL is fetched (outgoing fetches are
 * answered here by a fake document server), checked, and cached briefly.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { resolveClient } from "../../src/oauth/clients";
import { BASE, readResponse } from "../helpers/api";
import { type Browser, freshEmail, signIn, tenantWithOwner } from "../helpers/console";
import { pkce, REDIRECT, RESOURCE } from "./flow";

const app = createApp();
let counter = 0;

/** A document URL no other test uses, served by `documents`. */
function docUrl(): string {
  return `https://tools.example.com/oauth/client-${Date.now().toString(36)}-${counter++}.json`;
}

const documents = new Map<string, () => Response>();
let fetched: string[] = [];

function serveDocuments() {
  fetched = [];
  const real = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    const doc = documents.get(url);
    if (!doc) return real(input, init);
    fetched.push(url);
    return doc();
  });
}

function json(body: unknown, status = 200): () => Response {
  return () => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** The in-process app (so that the spied fetch is the one it calls), with the browser's cookies. */
async function inApp(browser: Browser, path: string, init: { method?: string; form?: Record<string, string> } = {}) {
  const headers = new Headers({ Cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; "), Accept: "text/html" });
  let body: string | undefined;
  if (init.form) {
    headers.set("Content-Type", "application/x-www-form-urlencoded");
    headers.set("Origin", BASE);
    body = new URLSearchParams({ ...init.form, _csrf: browser.csrf ?? "" }).toString();
  }
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${BASE}${path}`, { method: init.method ?? "GET", headers, body, redirect: "manual" }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return readResponse(res);
}

describe("client ID metadata documents", () => {
  it("a valid document makes a client; it is cached, so a second lookup fetches nothing", async () => {
    serveDocuments();
    const url = docUrl();
    documents.set(
      url,
      json({ client_id: url, client_name: "Doc Client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
    );
    const first = await resolveClient(env, url);
    expect(first).toMatchObject({
      ok: true,
      client: { client_id: url, kind: "metadata_document", client_name: "Doc Client", redirect_uris: [REDIRECT] },
    });
    const second = await resolveClient(env, url);
    expect(second.ok).toBe(true);
    expect(fetched).toEqual([url]);
  });

  it.each([
    [
      "client_id differs",
      (url: string) => json({ client_id: `${url}x`, redirect_uris: [REDIRECT] }),
      "does not name its own URL",
    ],
    ["no redirect_uris", (url: string) => json({ client_id: url }), "redirect_uris"],
    ["http redirect", (url: string) => json({ client_id: url, redirect_uris: ["http://app.example.com/cb"] }), "must use https"],
    [
      "a secret-based client",
      (url: string) => json({ client_id: url, redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" }),
      "public",
    ],
    ["not JSON", () => () => new Response("<html>", { status: 200 }), "not JSON"],
    ["HTTP 404", (url: string) => json({ client_id: url }, 404), "HTTP 404"],
    [
      "a redirect",
      () => () => new Response(null, { status: 302, headers: { Location: "https://elsewhere.example.com/doc.json" } }),
      "HTTP 302",
    ],
    [
      "too large",
      (url: string) => json({ client_id: url, redirect_uris: [REDIRECT], pad: "x".repeat(70 * 1024) }),
      "larger than 64 KiB",
    ],
  ])("refuses a document with %s", async (_label, make, reason) => {
    serveDocuments();
    const url = docUrl();
    documents.set(url, make(url));
    const res = await resolveClient(env, url);
    expect(res.ok).toBe(false);
    expect(!res.ok && res.reason).toContain(reason);
  });

  it.each([
    ["https://tools.example.com/", "must contain a path"],
    ["https://tools.example.com/a/../b.json", "canonical"],
    ["https://TOOLS.example.com/c.json", "canonical"],
    ["https://tools.example.com/c.json#f", "fragment"],
    ["http://tools.example.com/c.json", "https"],
    ["https://10.0.0.1/c.json", "private"],
  ])("refuses the client_id URL %s without fetching it", async (url, reason) => {
    serveDocuments();
    const res = await resolveClient(env, url);
    expect(res.ok).toBe(false);
    expect(!res.ok && res.reason).toContain(reason);
    expect(fetched).toEqual([]);
  });

  it("authorization code flow with a metadata-document client, end to end", async () => {
    serveDocuments();
    const url = docUrl();
    documents.set(url, json({ client_id: url, client_name: "Doc Client", redirect_uris: [REDIRECT] }));
    const email = freshEmail("cimd");
    await tenantWithOwner(email);
    const browser = await signIn(email);
    const { verifier, challenge } = await pkce();
    const query = new URLSearchParams({
      response_type: "code",
      client_id: url,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      resource: RESOURCE,
    }).toString();
    const start = await inApp(browser, `/oauth/authorize?${query}`);
    expect(start.status, start.text).toBe(302);
    const page = await inApp(browser, start.headers.get("Location") as string);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain("Doc Client");
    expect(page.text).toContain(url);
    browser.csrf = /name="_csrf" value="([^"]*)"/.exec(page.text)?.[1] ?? null;
    const answer = await inApp(browser, "/console/oauth/authorize", {
      method: "POST",
      form: {
        response_type: "code",
        client_id: url,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        resource: RESOURCE,
        decision: "approve",
      },
    });
    expect(answer.status, answer.text).toBe(303);
    const code = new URL(answer.headers.get("Location") as string).searchParams.get("code") as string;
    const ctx = createExecutionContext();
    const res = await readResponse(
      await app.fetch(
        new Request(`${BASE}/oauth/token`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code,
            code_verifier: verifier,
            redirect_uri: REDIRECT,
            client_id: url,
            resource: RESOURCE,
          }).toString(),
        }),
        env,
        ctx,
      ),
    );
    await waitOnExecutionContext(ctx);
    expect(res.status, res.text).toBe(200);
    expect(res.json.access_token).toMatch(/^mcp_at_us_/);
    // One fetch for the whole flow: the consent page and its post used the cached copy.
    expect(fetched).toEqual([url]);
  });

  it("an unusable document is shown as a page at /oauth/authorize, and nobody is redirected", async () => {
    serveDocuments();
    const url = docUrl();
    documents.set(url, json({ client_id: url, redirect_uris: ["https://other.example.com/cb"] }));
    const { challenge } = await pkce();
    const ctx = createExecutionContext();
    const res = await readResponse(
      await app.fetch(
        new Request(
          `${BASE}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: url, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256" })}`,
          { redirect: "manual" },
        ),
        env,
        ctx,
      ),
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(400);
    expect(res.headers.get("Location")).toBeNull();
    expect(res.text).toContain("is not one that");
  });
});
