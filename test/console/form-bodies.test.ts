/**
 * Every console route that takes a form, walked from the router itself: a body the console cannot
 * read (multipart without a boundary or with a broken one, a form that is not UTF-8, a body that
 * is no form at all, one over the cap) is refused with 413 or 422 — never a 500 — whether the
 * sender is signed in or not, as a page or, for a script asking for JSON, the API's envelope.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { consoleApp } from "../../src/console/app";
import { FORM_MAX_BYTES, formCap } from "../../src/console/form-body";
import { newFormToken } from "../../src/console/form-once";
import { BASE } from "../helpers/api";
import { type Browser, freshEmail, signIn, tenantWithOwner } from "../helpers/console";

/** Every POST route of the console, with its parameters filled in. */
const postPaths = [
  ...new Set(
    consoleApp.routes
      .filter((r) => r.method === "POST")
      .map((r) => `/console${r.path === "/" ? "" : r.path}`.replace(/:[a-z_]+/g, "x_0123")),
  ),
];

interface Bad {
  name: string;
  contentType: string;
  body: BodyInit;
  status: number;
  code: string;
}

const BAD: Bad[] = [
  {
    name: "multipart without a boundary",
    contentType: "multipart/form-data",
    body: "_csrf=x",
    status: 422,
    code: "invalid_request",
  },
  {
    name: "multipart whose body does not match its boundary",
    contentType: "multipart/form-data; boundary=abc",
    body: '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n',
    status: 422,
    code: "invalid_request",
  },
  {
    name: "a form that is not UTF-8",
    contentType: "application/x-www-form-urlencoded",
    body: new Uint8Array([0x61, 0x3d, 0xff, 0xfe, 0x80]),
    status: 422,
    code: "invalid_request",
  },
  {
    name: "JSON instead of a form",
    contentType: "application/json",
    body: '{"_csrf":"x"}',
    status: 422,
    code: "invalid_request",
  },
  { name: "plain text", contentType: "text/plain", body: "_csrf=x", status: 422, code: "invalid_request" },
  {
    name: "a form over the cap",
    contentType: "application/x-www-form-urlencoded",
    body: `a=${"x".repeat(FORM_MAX_BYTES)}`,
    status: 413,
    code: "media_too_large",
  },
];

let signedIn: Browser;

beforeAll(async () => {
  const email = freshEmail("bodies");
  await tenantWithOwner(email);
  signedIn = await signIn(email);
});

async function send(who: Browser | null, path: string, given: Bad, accept = "text/html") {
  const headers: Record<string, string> = { Origin: BASE, Accept: accept };
  let bad = given;
  if (bad.status === 413 && formCap(path) > FORM_MAX_BYTES) {
    // A form that carries files has a cap of an upload's size: over it by its declared length.
    headers["Content-Length"] = String(formCap(path) + 1);
    bad = { ...bad, body: new Blob(["a=1"]).stream() };
  }
  if (bad.contentType) headers["Content-Type"] = bad.contentType;
  if (who) return who.request(path, { method: "POST", body: bad.body, headers });
  const { exports } = await import("cloudflare:workers");
  const res = await exports.default.fetch(new Request(`${BASE}${path}`, { method: "POST", body: bad.body, headers }));
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe("malformed bodies on every console form", () => {
  it("finds the console's form routes (the walk covers the new ones as they come)", () => {
    expect(postPaths).toEqual(
      expect.arrayContaining([
        "/console/sign-in",
        "/console/keys",
        "/console/signing-keys",
        "/console/oauth/authorize",
        "/console/tasks/new",
      ]),
    );
    expect(postPaths.length).toBeGreaterThan(15);
  });

  for (const bad of BAD) {
    it(`refuses ${bad.name} on every route, signed in or not, never with a 500`, async () => {
      for (const path of postPaths) {
        for (const who of [null, signedIn]) {
          const res = await send(who, path, bad);
          expect(res.status, `${path} ${who ? "signed in" : "signed out"}: ${res.text.slice(0, 300)}`).toBe(bad.status);
          expect(res.headers.get("Content-Type"), `${path} ${who ? "signed in" : "signed out"}`).toMatch(/^text\/html/);
        }
      }
    });
  }

  it("answers a script that asks for JSON with the API's envelope", async () => {
    const res = await send(signedIn, "/console/keys", BAD[0] as Bad, "application/json");
    expect(res.status).toBe(422);
    const error = JSON.parse(res.text).error;
    expect(error).toMatchObject({ code: "invalid_request", type: expect.any(String), retryable: false });
    expect(error.details.errors[0].loc).toEqual(["header", "content-type"]);
  });

  it("still takes a well-formed multipart form (a script's or a browser's)", async () => {
    await signedIn.get("/console/keys");
    const form = new FormData();
    form.set("_csrf", signedIn.csrf as string);
    form.set("name", "");
    form.set("permissions", "chat");
    form.set("_form", newFormToken());
    const res = await signedIn.request("/console/keys", { method: "POST", body: form, headers: { Origin: BASE } });
    // Read and checked like the urlencoded form: the empty name is the refusal, not the body.
    expect(res.status).toBe(422);
    expect(res.text).toContain("name: a name of 1 to 100 characters is required");
  });

  it("the OAuth endpoints behind the consent page refuse the same bodies with OAuth's 400 invalid_request", async () => {
    const { exports } = await import("cloudflare:workers");
    for (const path of ["/oauth/token", "/oauth/device_authorization", "/oauth/revoke"]) {
      for (const bad of BAD) {
        const res = await exports.default.fetch(
          new Request(`${BASE}${path}`, { method: "POST", body: bad.body, headers: { "Content-Type": bad.contentType } }),
        );
        const text = await res.text();
        expect(res.status, `${path} ${bad.name}: ${text}`).toBe(400);
        expect(JSON.parse(text).error).toBe("invalid_request");
      }
    }
  });
});
