/**
 * Sign-in codes and sessions through the services, with the clock in the test's hands: expiry,
 * attempts, single use, supersession, rate limits per address and per client, and what storage
 * keeps (hashes only).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { CODE_TTL_MS, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "../../src/people/policy";
import { endSession, resolveSession } from "../../src/people/sessions";
import { verifySignInCode } from "../../src/people/sign-in";
import { userIdByEmail } from "../../src/people/users";
import { freshEmail, lastCode, lastMail, tenantWithOwner } from "../helpers/console";
import { requestCode } from "./request-code";

let ipSeq = 0;
const freshIp = () => `203.0.113.${(ipSeq++ % 250) + 1}`;
const client = (now: number, ip = freshIp()) => ({ ip, user_agent: "unit", now });

/** An owner whose tenant exists, and a code mailed to them at `now`. */
async function ownerWithCode(now: number) {
  const email = freshEmail("signin");
  await tenantWithOwner(email);
  await requestCode(env, { email, ...client(now) });
  return { email, code: await lastCode(email) };
}

/** A six-digit code that is not `code`. */
const other = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("sign-in codes", () => {
  it("the right code, once, starts a session on the owner's tenant", async () => {
    const now = Date.UTC(2026, 0, 1, 12);
    const { email, code } = await ownerWithCode(now);
    const ok = await verifySignInCode(env, { email, code, ...client(now + 1000) });
    expect(ok.ok).toBe(true);
    if (!ok.ok) return;
    expect(ok.tenant_id).toMatch(/^ten_/);
    expect(ok.started.cookie).toMatch(/^usr_[0-9a-z]{26}\.[0-9A-Za-z]{43}$/);
    // Single use: the same code again is no code at all.
    expect(await verifySignInCode(env, { email, code, ...client(now + 2000) })).toEqual({ ok: false, reason: "no_code" });
  });

  it("a wrong code counts down; the fifth wrong one kills the code, even for the right code after it", async () => {
    const now = Date.UTC(2026, 0, 2);
    const { email, code } = await ownerWithCode(now);
    for (let left = 4; left >= 1; left--) {
      expect(await verifySignInCode(env, { email, code: other(code), ...client(now) })).toEqual({
        ok: false,
        reason: "wrong",
        attempts_left: left,
      });
    }
    expect(await verifySignInCode(env, { email, code: other(code), ...client(now) })).toEqual({
      ok: false,
      reason: "too_many_attempts",
    });
    expect(await verifySignInCode(env, { email, code, ...client(now) })).toEqual({ ok: false, reason: "too_many_attempts" });
    // A new code works again.
    await requestCode(env, { email, ...client(now + 1000) });
    const fresh = await lastCode(email);
    expect((await verifySignInCode(env, { email, code: fresh, ...client(now + 2000) })).ok).toBe(true);
  });

  it("expires 10 minutes after it was sent", async () => {
    const now = Date.UTC(2026, 0, 3);
    const { email, code } = await ownerWithCode(now);
    expect(await verifySignInCode(env, { email, code, ...client(now + CODE_TTL_MS) })).toEqual({ ok: false, reason: "expired" });
    // …and stays expired: no later check revives it.
    expect(await verifySignInCode(env, { email, code, ...client(now + 1) })).toEqual({ ok: false, reason: "expired" });

    const again = await ownerWithCode(now);
    expect((await verifySignInCode(env, { email: again.email, code: again.code, ...client(now + CODE_TTL_MS - 1) })).ok).toBe(
      true,
    );
  });

  it("a new request supersedes the older code", async () => {
    const now = Date.UTC(2026, 0, 4);
    const { email, code: first } = await ownerWithCode(now);
    await requestCode(env, { email, ...client(now + 1000) });
    const second = await lastCode(email);
    if (first !== second) {
      expect(await verifySignInCode(env, { email, code: first, ...client(now + 2000) })).toMatchObject({
        ok: false,
        reason: "wrong",
      });
    }
    expect((await verifySignInCode(env, { email, code: second, ...client(now + 3000) })).ok).toBe(true);
  });

  it("a malformed code is refused without costing an attempt", async () => {
    const now = Date.UTC(2026, 0, 5);
    const { email, code } = await ownerWithCode(now);
    expect(await verifySignInCode(env, { email, code: "12ab56", ...client(now) })).toEqual({ ok: false, reason: "malformed" });
    expect(await verifySignInCode(env, { email, code: other(code), ...client(now) })).toEqual({
      ok: false,
      reason: "wrong",
      attempts_left: 4,
    });
  });

  it("an address that belongs to no one gets the same answers, and no mail", async () => {
    const now = Date.UTC(2026, 0, 6);
    const email = freshEmail("nobody");
    await expect(requestCode(env, { email, ...client(now) })).resolves.toEqual({ email });
    expect(await lastMail(email)).toBeUndefined();
    expect(await userIdByEmail(env, email)).toBeNull();
    for (let left = 4; left >= 1; left--) {
      expect(await verifySignInCode(env, { email, code: "000000", ...client(now) })).toEqual({
        ok: false,
        reason: "wrong",
        attempts_left: left,
      });
    }
    expect(await verifySignInCode(env, { email, code: "000000", ...client(now) })).toEqual({
      ok: false,
      reason: "too_many_attempts",
    });
  });

  it("refuses a malformed address with invalid_request at /email", async () => {
    const err = await requestCode(env, { email: "not an address", ...client(Date.now()) }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe("invalid_request");
    expect(err.param).toBe("/email");
  });
});

describe("code request limits", () => {
  it("allow 5 requests per address per 15 minutes, from any client, then rate_limited until the window turns", async () => {
    const start = Date.UTC(2026, 1, 1, 10, 0); // a window boundary
    const email = freshEmail("limited");
    await tenantWithOwner(email);
    for (let i = 0; i < 5; i++) await requestCode(env, { email, ...client(start + i * 1000) });
    const err = await requestCode(env, { email, ...client(start + 10_000) }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe("rate_limited");
    expect(err.status).toBe(429);
    expect(err.retryAfter).toBe(15 * 60 - 10);
    // The refused request sent nothing: the newest mail is still the fifth code.
    const mails = (await env.OUTBOX?.getByName("outbox").list({ limit: 100, to: email })) ?? [];
    expect(mails.length).toBe(5);
    // The next window lets the address ask again.
    await expect(requestCode(env, { email, ...client(start + 15 * 60_000) })).resolves.toEqual({ email });
  });

  it("limit an unknown address exactly like a known one", async () => {
    const start = Date.UTC(2026, 1, 2, 10, 0);
    const email = freshEmail("unknown-limited");
    for (let i = 0; i < 5; i++) await requestCode(env, { email, ...client(start) });
    const err = await requestCode(env, { email, ...client(start) }).catch((e) => e);
    expect(err.code).toBe("rate_limited");
  });

  it("allow 20 requests per client address per 15 minutes, whatever the addresses", async () => {
    const start = Date.UTC(2026, 1, 3, 10, 0);
    const ip = freshIp();
    for (let i = 0; i < 20; i++) await requestCode(env, { email: freshEmail("spray"), ...client(start, ip) });
    const err = await requestCode(env, { email: freshEmail("spray"), ...client(start, ip) }).catch((e) => e);
    expect(err.code).toBe("rate_limited");
    expect(err.message).toContain("network address");
    // Another client is not held back.
    await expect(requestCode(env, { email: freshEmail("spray"), ...client(start) })).resolves.toBeDefined();
  });
});

describe("storage", () => {
  it("keeps only hashes of the code and the session token", async () => {
    const now = Date.UTC(2026, 2, 1);
    const { email, code } = await ownerWithCode(now);
    const ok = await verifySignInCode(env, { email, code, ...client(now) });
    if (!ok.ok) throw new Error("sign-in failed");
    const token = ok.started.cookie.split(".")[1] as string;
    const userId = (await userIdByEmail(env, email)) as string;
    await runInDurableObject(env.USERS.getByName(userId), async (_o, state) => {
      const sql = state.storage.sql;
      const tables = sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
        )
        .toArray();
      // Every text stored anywhere in the object (numbers are times and counts).
      const texts = tables.flatMap(({ name }) =>
        sql
          .exec(`SELECT * FROM ${name}`)
          .toArray()
          .flatMap((row) => Object.values(row).filter((v): v is string => typeof v === "string")),
      );
      expect(texts.length).toBeGreaterThan(5);
      for (const t of texts) {
        expect(t).not.toContain(token);
        expect(t).not.toContain(code);
      }
      const stored = sql.exec<{ code_hash: string }>("SELECT code_hash FROM sign_in_codes").one();
      expect(stored.code_hash).toMatch(/^[0-9a-f]{64}$/);
      const session = sql.exec<{ token_hash: string }>("SELECT token_hash FROM sessions").one();
      expect(session.token_hash).toMatch(/^[0-9a-f]{64}$/);
    });
  });
});

describe("sessions", () => {
  async function signedIn(now: number) {
    const { email, code } = await ownerWithCode(now);
    const ok = await verifySignInCode(env, { email, code, ...client(now) });
    if (!ok.ok) throw new Error("sign-in failed");
    return ok.started.cookie;
  }

  it("end after 12 hours without a request", async () => {
    const now = Date.UTC(2026, 3, 1);
    const cookie = await signedIn(now);
    expect(await resolveSession(env, cookie, now + SESSION_IDLE_MS - 1)).not.toBeNull();
    // Used just now: the idle clock restarted.
    expect(await resolveSession(env, cookie, now + 2 * SESSION_IDLE_MS - 2)).not.toBeNull();
    expect(await resolveSession(env, cookie, now + 3 * SESSION_IDLE_MS)).toBeNull();
  });

  it("end 7 days after sign-in however busy", async () => {
    const now = Date.UTC(2026, 3, 2);
    const cookie = await signedIn(now);
    let t = now;
    while (t + SESSION_IDLE_MS / 2 < now + SESSION_ABSOLUTE_MS) {
      t += SESSION_IDLE_MS / 2;
      expect(await resolveSession(env, cookie, t), new Date(t).toISOString()).not.toBeNull();
    }
    expect(await resolveSession(env, cookie, now + SESSION_ABSOLUTE_MS)).toBeNull();
  });

  it("end at sign-out, on the server: the cookie is worth nothing after it", async () => {
    const now = Date.now();
    const cookie = await signedIn(now);
    const resolved = await resolveSession(env, cookie, now);
    expect(resolved?.current?.role).toBe("owner");
    await endSession(env, resolved!.session, now);
    expect(await resolveSession(env, cookie, now)).toBeNull();
  });

  it("refuse a cookie that is malformed, unknown, or whose token belongs to another person", async () => {
    const now = Date.now();
    const a = await signedIn(now);
    const b = await signedIn(now);
    expect(await resolveSession(env, undefined, now)).toBeNull();
    expect(await resolveSession(env, "garbage", now)).toBeNull();
    const [userA] = a.split(".");
    const [, tokenB] = b.split(".");
    expect(await resolveSession(env, `${userA}.${tokenB}`, now)).toBeNull();
    expect(await resolveSession(env, `${userA}.${"A".repeat(43)}`, now)).toBeNull();
  });
});
