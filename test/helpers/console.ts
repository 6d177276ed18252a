/**
 * Drives the console as a browser would: a cookie jar, form posts with the page's CSRF token,
 * an Origin header, redirects followed by hand (the test sees each 303). The sign-in code comes
 * from the local outbox, as a person would read it in the `npm start` log.
 */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { admin, BASE } from "./api";

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  /** Where a redirect points (a path), if it is one. */
  location: string | null;
}

let ipCounter = 0;

export class Browser {
  readonly cookies = new Map<string, string>();
  /** Each browser comes from its own address, so per-client limits of one test do not touch another's. */
  ip = `198.51.100.${(ipCounter++ % 250) + 1}`;
  userAgent = "test-browser/1.0";
  /** The CSRF token of the last page seen. */
  csrf: string | null = null;

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  private absorb(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = (pair as string).indexOf("=");
      const name = (pair as string).slice(0, eq).trim();
      const value = (pair as string).slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(path: string, init: { method?: string; body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Page> {
    const headers = new Headers(init.headers);
    if (this.cookies.size && !headers.has("Cookie")) headers.set("Cookie", this.cookieHeader());
    if (!headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", this.ip);
    if (!headers.has("User-Agent")) headers.set("User-Agent", this.userAgent);
    if (!headers.has("Accept")) headers.set("Accept", "text/html,application/xhtml+xml");
    const res = await exports.default.fetch(
      new Request(`${BASE}${path}`, { method: init.method ?? "GET", headers, body: init.body, redirect: "manual" }),
    );
    this.absorb(res);
    const text = await res.text();
    const token = /name="_csrf" value="([^"]*)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    const location = res.headers.get("Location");
    return { status: res.status, headers: res.headers, text, location: location ? location.replace(BASE, "") : null };
  }

  get(path: string): Promise<Page> {
    return this.request(path);
  }

  /**
   * Posts a form as the page would: its fields plus `_csrf` (the last token seen, unless the
   * test gives one, or null for none) and this site's Origin (unless the test gives another).
   */
  post(path: string, fields: Record<string, string>, opts: { csrf?: string | null; origin?: string | null } = {}): Promise<Page> {
    const form = new URLSearchParams(fields);
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (token !== null) form.set("_csrf", token);
    const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
    const origin = opts.origin === undefined ? BASE : opts.origin;
    if (origin !== null) headers.Origin = origin;
    return this.request(path, { method: "POST", body: form.toString(), headers });
  }
}

/** The newest outbox message to `email`, as the operator API lists it. */
export async function lastMail(
  email: string,
): Promise<{ id: string; to: string; subject: string; text: string; created_at: string } | undefined> {
  const res = await admin(`/admin/v1/outbox?to=${encodeURIComponent(email)}&limit=1`);
  expect(res.status).toBe(200);
  return res.json.data[0];
}

/** The sign-in mail each address's code was last read from here. */
const codeRead = new Map<string, string>();

/**
 * The code in the newest sign-in mail to `email`. A code is mailed after the answer that promised
 * it, so this waits (a little) for a code mail it has not read yet, then takes the newest.
 */
export async function lastCode(email: string): Promise<string> {
  let mail = await lastMail(email);
  for (let i = 0; i < 200 && (!mail || !/sign-in code/.test(mail.subject) || mail.id === codeRead.get(email)); i++) {
    await new Promise((r) => setTimeout(r, 25));
    mail = await lastMail(email);
  }
  const code = mail && /\b(\d{6})\b/.exec(mail.subject)?.[1];
  expect(code, `no sign-in code mailed to ${email}`).toBeTruthy();
  codeRead.set(email, (mail as { id: string }).id);
  return code as string;
}

let emailCounter = 0;

/** An address no other test uses. */
export function freshEmail(label = "person"): string {
  return `${label}-${Date.now().toString(36)}-${emailCounter++}@example.com`;
}

/** A tenant whose first owner is `email`, made through the operator API. */
export async function tenantWithOwner(email: string, credits = "1000"): Promise<{ tenant_id: string; name: string }> {
  const res = await admin("/admin/v1/tenants", { name: `Tenant of ${email}`, credits, owner_email: email });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { tenant_id: res.json.tenant_id, name: res.json.name };
}

/**
 * Opens the sign-in form and asks for a code mailed to `email`; returns the browser, on the code
 * form, once the code's mail (sent after the answer) is in the outbox.
 */
export async function askCode(email: string, browser = new Browser()): Promise<Browser> {
  const form = await browser.get("/console/sign-in");
  expect(form.status).toBe(200);
  const before = (await lastMail(email))?.id;
  const asked = await browser.post("/console/sign-in", { email });
  expect(asked.status, asked.text).toBe(200);
  // A plain loop, not expect.poll: this runs in beforeAll hooks too.
  for (let i = 0; i < 200 && (await lastMail(email))?.id === before; i++) await new Promise((r) => setTimeout(r, 25));
  return browser;
}

/** Asks for a code and signs in with it; returns the browser, now holding a session. */
export async function signIn(email: string, browser = new Browser()): Promise<Browser> {
  await askCode(email, browser);
  const done = await browser.post("/console/sign-in/code", { email, code: await lastCode(email) });
  expect(done.status, done.text).toBe(303);
  expect(done.location).toBe("/console");
  // Follow the redirect, as a browser does: the page carries the session's CSRF token.
  const landed = await browser.get("/console");
  expect(landed.status, landed.text).toBe(200);
  return browser;
}

/** The owner (signed in) invites `email` with `role` from the members page; the invitee signs in. */
export async function inviteAndSignIn(owner: Browser, email: string, role: "owner" | "developer" | "viewer"): Promise<Browser> {
  await owner.get("/console/members");
  const invited = await owner.post("/console/members/invite", { email, role });
  expect(invited.status, invited.text).toBe(303);
  return signIn(email);
}
