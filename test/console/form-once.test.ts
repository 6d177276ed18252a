/**
 * Once-only form tokens and the stored counts of the slow limits end: a claimed token's counter
 * object deletes its record at the token's end (its alarm), a token past its end is refused, and
 * the sign-in and OAuth windows' objects delete their counts once their window is over.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { FORM_TOKEN_TTL_MS, formTokenIssuedAt, newFormToken } from "../../src/console/form-once";
import { sha256Hex } from "../../src/lib/crypto";
import { LIMITS, takeOAuthLimit } from "../../src/oauth/limits";
import { CODE_REQUEST_WINDOW_MS } from "../../src/people/policy";
import { takeCodeRequest } from "../../src/people/sign-in-limits";
import { type Browser, freshEmail, signIn, tenantWithOwner } from "../helpers/console";

let tenant: { tenant_id: string };
let owner: Browser;

beforeAll(async () => {
  const email = freshEmail("owner");
  tenant = await tenantWithOwner(email);
  owner = await signIn(email);
});

const createToken = (html: string) => /action="\/console\/keys"[\s\S]*?name="_form" value="([0-9A-Za-z]{22})"/.exec(html)?.[1];

async function createKey(token: string, name: string) {
  await owner.get("/console/keys");
  return owner.post("/console/keys", { name, permissions: "catalog:read", mode: "live", _form: token });
}

/** What a counter object stores, and its alarm. */
async function stored(name: string) {
  const stub = env.RATE_COUNTERS.getByName(name);
  const state = await runInDurableObject(stub, async (_o, ctx) => ({
    keys: [...(await ctx.storage.list()).keys()],
    alarm: await ctx.storage.getAlarm(),
  }));
  return { stub, ...state };
}

describe("form tokens", () => {
  it("a claimed token's record is deleted by its object's alarm at the token's end", async () => {
    const page = await owner.get("/console/keys");
    const token = createToken(page.text) as string;
    const issued = formTokenIssuedAt(token);
    expect(Math.abs(issued - Date.now())).toBeLessThan(FORM_TOKEN_TTL_MS);
    const posted = await createKey(token, "once");
    expect(posted.status).toBe(303);
    const claim = await stored(`console-form:${tenant.tenant_id}:${token}`);
    expect(claim.keys.length).toBe(1);
    expect(claim.alarm).toBe(issued + FORM_TOKEN_TTL_MS);
    expect(await runDurableObjectAlarm(claim.stub)).toBe(true);
    const after = await stored(`console-form:${tenant.tenant_id}:${token}`);
    expect(after.keys).toEqual([]);
    expect(after.alarm).toBeNull();
  });

  it("a token past its end is refused (422 at _form) and makes nothing", async () => {
    const old = newFormToken(Date.now() - FORM_TOKEN_TTL_MS - 1000);
    const posted = await createKey(old, "too-late");
    expect(posted.status).toBe(422);
    expect(posted.text).toContain("this form has expired");
    const claim = await stored(`console-form:${tenant.tenant_id}:${old}`);
    expect(claim.keys).toEqual([]);
    expect((await owner.get("/console/keys")).text).not.toContain("too-late");
  });

  it("a token made in the future is refused too, so no claim is kept longer than a day", async () => {
    const posted = await createKey(newFormToken(Date.now() + FORM_TOKEN_TTL_MS), "from-the-future");
    expect(posted.status).toBe(422);
  });
});

describe("stored windows of the slow limits", () => {
  it("a sign-in code request's counts are deleted once their window is over", async () => {
    const email = freshEmail("window");
    const now = Date.now();
    await takeCodeRequest(env, email, "203.0.113.77", now);
    const windowEnd = (Math.floor(now / CODE_REQUEST_WINDOW_MS) + 1) * CODE_REQUEST_WINDOW_MS;
    for (const name of [`sign-in:email:${await sha256Hex(email)}`, "sign-in:ip:203.0.113.77"]) {
      const counts = await stored(name);
      expect(counts.keys.length).toBe(1);
      // The window's end, or an hour from now when that is later (clocks of isolates differ).
      expect(counts.alarm).toBeGreaterThanOrEqual(Math.max(windowEnd, now + 60 * 60 * 1000));
      expect(counts.alarm).toBeLessThanOrEqual(Math.max(windowEnd, Date.now() + 60 * 60 * 1000));
      expect(await runDurableObjectAlarm(counts.stub)).toBe(true);
      expect((await stored(name)).keys).toEqual([]);
    }
  });

  it("an OAuth limit's counts are deleted once their window is over", async () => {
    const now = Date.now();
    const ip = `203.0.113.${(now % 200) + 1}-oauth`;
    expect((await takeOAuthLimit(env, "register", ip, now)).allowed).toBe(true);
    const { windowMs } = LIMITS.register;
    const counts = await stored(`oauth-register:${ip}`);
    const windowEnd = (Math.floor(now / windowMs) + 1) * windowMs;
    expect(counts.alarm).toBeGreaterThanOrEqual(Math.max(windowEnd, now + 60 * 60 * 1000));
    expect(counts.alarm).toBeLessThanOrEqual(Math.max(windowEnd, Date.now() + 60 * 60 * 1000));
    expect(await runDurableObjectAlarm(counts.stub)).toBe(true);
    expect((await stored(`oauth-register:${ip}`)).keys).toEqual([]);
  });
});
