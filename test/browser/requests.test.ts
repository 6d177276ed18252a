/**
 * The Requests page as an owner uses it, in headless Chromium against the local Worker: a key
 * makes an image create and a refused one; the owner opens Requests, filters by status class,
 * opens the create's page with its attempts on a time line, presses Run again, and sees the
 * original's and the new task's images side by side (the page reloads itself until the new task
 * ends). No page logs an error or a CSP violation.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, type ConsoleServer, chromiumPath, launchBrowser, signInCode, startConsoleServer } from "./harness.ts";

declare const document: { querySelectorAll(selector: string): ArrayLike<{ complete: boolean; naturalWidth: number }> };

const OWNER = "grace@example.com";
let server: ConsoleServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const state = { key: "", createId: "", refusedId: "", taskId: "", compare: "" };

const api = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { Authorization: `Bearer ${state.key}`, "Content-Type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

beforeAll(async () => {
  chromiumPath();
  [server, browser] = await Promise.all([startConsoleServer({ ownerEmail: OWNER, latencyScale: "0.2" }), launchBrowser()]);
  page = await browser.context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(`${page.url()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => pageErrors.push(`${page.url()}: ${e.message}`));
});

afterAll(async () => {
  await browser?.close();
  server?.stop();
});

describe("the Requests page in Chromium", () => {
  it("signs the owner in and makes two calls with a key: a create and a refused one", async () => {
    await page.goto(`${server.base}/console/sign-in`);
    await page.getByLabel("Email").fill(OWNER);
    await page.getByRole("button", { name: /code/i }).click();
    await page.getByLabel(/code/i).fill(await signInCode(server, OWNER));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${server.base}/console`);

    const key = await server.admin(`/admin/v1/tenants/${server.tenantId}/api-keys`, {});
    expect(key.status).toBe(201);
    state.key = key.json.api_key;
    const body = { prompt: "a red fox in the snow", count: 1, canvas: { type: "preset", tier: "1K", aspect: "1:1" } };
    const created = await api("/v1/images/generations", body, { "Idempotency-Key": "req-page-1" });
    expect(created.status).toBe(202);
    state.createId = created.headers.get("X-Request-Id") as string;
    state.taskId = ((await created.json()) as { task_id: string }).task_id;
    const refused = await api("/v1/images/generations", { count: 1 }, { "Idempotency-Key": "req-page-2" });
    expect(refused.status).toBe(422);
    state.refusedId = refused.headers.get("X-Request-Id") as string;
    // The original's image, for the comparison later.
    for (let i = 0; i < 100; i++) {
      const task = (await (await api(`/v1/tasks/${state.taskId}`)).json()) as { status: string };
      if (task.status === "succeeded") break;
      expect(["queued", "running"]).toContain(task.status);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  it("lists both calls, and only the refused one once filtered by 4xx", async () => {
    await page.goto(`${server.base}/console`);
    await page.getByRole("link", { name: "Requests", exact: true }).click();
    await page.waitForURL(`${server.base}/console/requests`);
    // Entries are written just after each answer: reload until both are there.
    for (let i = 0; i < 20 && (await page.locator(`tr[data-request-id="${state.createId}"]`).count()) === 0; i++) {
      await new Promise((r) => setTimeout(r, 250));
      await page.reload();
    }
    expect(await page.locator(`tr[data-request-id="${state.createId}"]`).count()).toBe(1);
    expect(await page.locator(`tr[data-request-id="${state.refusedId}"]`).count()).toBe(1);

    await page.getByLabel("Status").selectOption("4xx");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/status=4xx/);
    expect(await page.locator(`tr[data-request-id="${state.refusedId}"]`).count()).toBe(1);
    expect(await page.locator(`tr[data-request-id="${state.createId}"]`).count()).toBe(0);
  });

  it("opens the create's page with its attempt on the time line", async () => {
    await page.getByRole("link", { name: "Clear" }).click();
    await page.locator(`tr[data-request-id="${state.createId}"] a[href^="/console/requests/"]`).click();
    await page.waitForURL(`${server.base}/console/requests/${state.createId}`);
    const bars = page.locator("ol.timeline li[data-attempt] .bar");
    expect(await bars.count()).toBeGreaterThanOrEqual(1);
    const style = (await bars.first().getAttribute("style")) ?? "";
    expect(style).toMatch(/left: [\d.]+%; width: [\d.]+%/);
    // The bar is drawn inside its track, with some width.
    const [bar, track] = await Promise.all([bars.first().boundingBox(), page.locator("ol.timeline .track").last().boundingBox()]);
    expect(bar && track && bar.width > 0 && bar.x >= track.x && bar.x + bar.width <= track.x + track.width + 1).toBe(true);
  });

  it("runs it again and shows the two images side by side, linking to the new task", async () => {
    await page.getByRole("button", { name: "Run again", exact: true }).click();
    await page.waitForURL(/\/compare\?task=task_/);
    const newTask = new URL(page.url()).searchParams.get("task") as string;
    expect(newTask).not.toBe(state.taskId);
    // The page reloads itself while the new task runs.
    await page.waitForSelector(`section[data-task-id="${newTask}"][data-status="succeeded"]`, { timeout: 30_000 });
    const sections = page.locator(".side-by-side > section");
    expect(await sections.count()).toBe(2);
    expect(await sections.nth(0).getAttribute("data-task-id")).toBe(state.taskId);
    await page.waitForFunction(() => {
      const imgs = document.querySelectorAll(".side-by-side img");
      return imgs.length === 2 && Array.from(imgs).every((i) => i.complete && i.naturalWidth > 0);
    });
    // Side by side: the two results share a row.
    const [left, right] = await Promise.all([sections.nth(0).boundingBox(), sections.nth(1).boundingBox()]);
    expect(left && right && Math.abs(left.y - right.y) < 2 && right.x > left.x).toBe(true);
    expect(await sections.nth(1).locator(`a[href="/console/tasks/${newTask}"]`).count()).toBe(1);
    state.compare = new URL(page.url()).pathname + new URL(page.url()).search;
    expect(pageErrors).toEqual([]);
  });

  it("fits the list, a request and the comparison to a phone's width", async () => {
    await page.setViewportSize({ width: 390, height: 860 });
    const pages = { requests: "/console/requests", request: `/console/requests/${state.createId}`, "run-again": state.compare };
    for (const [name, path] of Object.entries(pages)) {
      await page.goto(`${server.base}${path}`);
      const fit = (await page.evaluate(
        "({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })",
      )) as { scroll: number; client: number };
      // With SCREENSHOTS_DIR set (as `npm run screenshots` sets it), the pages are saved there.
      if (process.env.SCREENSHOTS_DIR) {
        mkdirSync(process.env.SCREENSHOTS_DIR, { recursive: true });
        await page.screenshot({ path: join(process.env.SCREENSHOTS_DIR, `${name}-narrow.png`), fullPage: true });
      }
      // What sticks out, named in the failure.
      const wide = await page.evaluate(
        "[...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().width))",
      );
      expect(fit.scroll, `${path}: ${JSON.stringify(wide)}`).toBeLessThanOrEqual(fit.client);
    }
    expect(pageErrors).toEqual([]);
  });
});
