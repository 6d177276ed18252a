/**
 * What the browser tests (and `npm run screenshots`) run against: the local Worker under
 * `wrangler dev` on 127.0.0.1 (a free port, a temporary state folder, the mail outbox on, the
 * sandbox slowed enough for a task's progress to show), a tenant made through the operator API
 * with an owner's email, and one headless Chromium — Debian's, driven by playwright-core through
 * its executable path; nothing is downloaded.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { freePort, loadCatalogInto, startWranglerDev, type WranglerDev } from "../../scripts/lib/local-server.ts";

import { chromiumPath } from "./chromium.ts";

export { chromiumPath, findChromium, INSTALL_HINT } from "./chromium.ts";

export interface ConsoleServer {
  /** The address a person opens (wrangler's own port, as `npm start` prints it). */
  base: string;
  adminToken: string;
  tenantId: string;
  ownerEmail: string;
  admin(path: string, body?: unknown): Promise<{ status: number; json: any }>;
  stop(): void;
}

/**
 * The local Worker with a tenant whose owner is `ownerEmail`. The sandbox runs at half its usual
 * latency: an image takes about 2 s and a 4 s video about 6 s, long enough for progress to move.
 */
export async function startConsoleServer(opts: { ownerEmail: string; latencyScale?: string }): Promise<ConsoleServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const adminToken = `adm_${randomBytes(24).toString("hex")}`;
  const dev: WranglerDev = await startWranglerDev({
    port,
    vars: {
      ADMIN_TOKEN: adminToken,
      PUBLIC_BASE_URL: base,
      EMAIL_OUTBOX: "true",
      SANDBOX_LATENCY_SCALE: opts.latencyScale ?? "0.5",
      RATE_LIMIT_PER_MINUTE: "100000",
    },
    prepare: loadCatalogInto,
  });
  const admin = async (path: string, body?: unknown) => {
    const r = await fetch(`${base}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: r.status, json: (await r.json()) as any };
  };
  try {
    const t = await admin("/admin/v1/tenants", { name: "Acme Studio", credits: "5000", owner_email: opts.ownerEmail });
    if (t.status !== 201) throw new Error(`could not create the tenant: ${t.status} ${JSON.stringify(t.json)}`);
    return { base, adminToken, tenantId: t.json.tenant_id, ownerEmail: opts.ownerEmail, admin, stop: dev.stop };
  } catch (e) {
    dev.stop();
    throw e;
  }
}

/**
 * The newest sign-in code mailed to `email`, read from the local outbox (`GET /admin/v1/outbox`);
 * the code is mailed after the page that promised it, so this waits a little for it.
 */
export async function signInCode(server: ConsoleServer, email: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const r = await server.admin("/admin/v1/outbox");
    if (r.status !== 200) throw new Error(`outbox: ${r.status} ${JSON.stringify(r.json)}`);
    const messages = (r.json.data ?? []) as { to: string; subject: string; text: string }[];
    const mine = messages.filter((m) => m.to.toLowerCase() === email.toLowerCase());
    // Newest first.
    const code = mine[0] && /\b(\d{6})\b/.exec(mine[0].text)?.[1];
    if (code) return code;
    if (attempt >= 40) throw new Error(`no sign-in code for ${email} in the outbox: ${JSON.stringify(messages)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * One headless Chromium with a fresh profile. The background-networking switches keep it from
 * reaching out (this machine's network refuses it, and a test must not depend on it).
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  const profile = mkdtempSync(join(tmpdir(), "console-browser-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // Players start without a click, as a person's click would let them.
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
