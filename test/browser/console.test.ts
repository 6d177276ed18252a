/**
 * The console as a person uses it, in headless Chromium against the local Worker: sign in with
 * the code the outbox holds, make an API key and use it (reloading the page that showed it makes
 * nothing), rotate it (the old one refused at once), then watch two sandbox tasks made with the
 * new key — progress moving on the page, the image decoded, the video playing — run tasks from
 * the console's New task form (one with an uploaded image), read the usage table and its CSV,
 * add a webhook endpoint and send it a test event that verifies with its secret,
 * and hold every page to the window at 1,280 px and at a phone's width (every control in reach, the
 * navigation a menu on the phone, a long id copied with its button). No page logs an error or a
 * CSP violation. With SCREENSHOTS_DIR set (`npm run screenshots`), the main pages are saved
 * there as PNGs.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { encode } from "fast-png";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../packages/client/src/webhooks.ts";
import { type Browser, type ConsoleServer, chromiumPath, launchBrowser, signInCode, startConsoleServer } from "./harness.ts";
import { layoutProblems } from "./layout.ts";

// What the callbacks below use of the page's globals (they run in Chromium, not here).
declare const document: { querySelector(selector: string): unknown };
interface PageVideo {
  readyState: number;
  currentTime: number;
  duration: number;
  muted: boolean;
  play(): Promise<void>;
  pause(): void;
}
interface PageImage {
  complete: boolean;
  naturalWidth: number;
}

const OWNER = "ada@example.com";
const root = new URL("../../", import.meta.url).pathname;
/** Where the screenshots go: SCREENSHOTS_DIR (relative to the checkout), else a temporary folder. */
const shots = process.env.SCREENSHOTS_DIR
  ? resolve(root, process.env.SCREENSHOTS_DIR)
  : mkdtempSync(join(tmpdir(), "console-screens-"));

let server: ConsoleServer;
let browser: Browser;
let page: Page;
/** Every error a page logged (a CSP violation is one) or threw, with the page it came from. */
const pageErrors: string[] = [];

function watch(p: Page) {
  p.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(`${p.url()}: ${m.text()}`);
  });
  p.on("pageerror", (e) => pageErrors.push(`${p.url()}: ${e.message}`));
}

/** What the tests carry from one step to the next (they run in order, on one page). */
const state = { key: "", imageTask: "", videoTask: "", endpoint: "", delivery: "" };

const api = (path: string, key: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

async function screenshot(name: string) {
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

/**
 * Records, from inside the page, every value the task page's progress bar takes after load (the
 * live updates, not the state rendered with the page), and its status at that moment.
 */
const RECORD_PROGRESS = `
  window.__progress = [];
  document.addEventListener("DOMContentLoaded", () => {
    const record = () => {
      const live = document.getElementById("task-live");
      const bar = live && live.querySelector("progress");
      if (!bar) return;
      const last = window.__progress[window.__progress.length - 1];
      const entry = { percent: bar.value, status: live.dataset.status };
      if (!last || last.percent !== entry.percent || last.status !== entry.status) window.__progress.push(entry);
    };
    new MutationObserver(record).observe(document.body, { subtree: true, attributes: true, childList: true, characterData: true });
  });
`;

beforeAll(async () => {
  // First, so that a machine without Chromium fails at once, saying what to install.
  chromiumPath();
  [server, browser] = await Promise.all([startConsoleServer({ ownerEmail: OWNER }), launchBrowser()]);
  await browser.context.addInitScript(RECORD_PROGRESS);
  browser.context.on("page", watch);
  page = await browser.context.newPage();
});

afterAll(async () => {
  await browser?.close();
  server?.stop();
  if (!process.env.SCREENSHOTS_DIR) rmSync(shots, { recursive: true, force: true });
});

describe("the console in Chromium", () => {
  it("signs in with the code mailed to the owner (read from the outbox)", async () => {
    await page.goto(`${server.base}/console`);
    expect(new URL(page.url()).pathname).toBe("/console/sign-in");
    await page.getByLabel("Email").fill(OWNER);
    await page.getByRole("button", { name: /code/i }).click();
    await page.getByLabel(/code/i).fill(await signInCode(server, OWNER));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${server.base}/console`);
    expect(await page.textContent("body")).toContain("Acme Studio");
  });

  it("creates an API key, calls the API with it, rotates it and sees the old one refused", async () => {
    await page.goto(`${server.base}/console/keys`);
    await page.getByLabel("Name", { exact: true }).fill("laptop");
    // The work permissions come ticked; reading the request log is chosen.
    expect(await page.getByLabel("logs:read", { exact: true }).isChecked()).toBe(false);
    expect(await page.getByLabel("tasks:write", { exact: true }).isChecked()).toBe(true);
    await page.getByLabel("logs:read", { exact: true }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    await page.waitForURL(`${server.base}/console/keys/created`);
    const secret = await page.locator("[data-secret-once] input").inputValue();
    expect(secret).toMatch(/^sk_us_live_/);
    expect((await api("/v1/models", secret)).status).toBe(200);
    // Reloading the page that showed it makes no key and shows none.
    await page.reload();
    expect(await page.locator("[data-secret-once]").count()).toBe(0);
    expect(await page.textContent("h1")).toBe("No new key to show");
    await page.goto(`${server.base}/console/keys`);
    expect(await page.locator("tr[data-key-id]", { hasText: "laptop" }).count()).toBe(1);

    await page.goto(`${server.base}/console/keys`);
    const row = page.locator("tr[data-key-id]", { hasText: "laptop" });
    await row.getByLabel("Old key keeps working for").selectOption("none");
    await row.getByRole("button", { name: "Rotate" }).click();
    const rotated = await page.locator("[data-secret-once] input").inputValue();
    expect(rotated).toMatch(/^sk_us_live_/);
    expect(rotated).not.toBe(secret);
    expect((await api("/v1/models", secret)).status).toBe(401);
    expect((await api("/v1/models", rotated)).status).toBe(200);
    state.key = rotated;
    await page.goto(`${server.base}/console/keys`);
    await screenshot("keys");
  });

  it("shows a video task's progress moving, then plays the video", async () => {
    const res = await api(
      "/v1/videos/text-to-video",
      state.key,
      { prompt: "waves on a beach", duration: 4 },
      { "Idempotency-Key": "v-1" },
    );
    expect(res.status).toBe(202);
    state.videoTask = ((await res.json()) as { task_id: string }).task_id;

    // From the listing, as a person would find it.
    await page.goto(`${server.base}/console/tasks`);
    await page.locator(`a[href="/console/tasks/${state.videoTask}"]`).click();
    await page.waitForURL(`${server.base}/console/tasks/${state.videoTask}`);
    await page.waitForSelector('#task-live[data-status="succeeded"]', { timeout: 45_000 });

    const seen = (await page.evaluate("window.__progress")) as { percent: number; status: string }[];
    const intermediate = seen.filter(
      (s) => (s.status === "queued" || s.status === "running") && s.percent > 0 && s.percent < 100,
    );
    expect(intermediate.length, JSON.stringify(seen)).toBeGreaterThan(0);
    // Rendered in order: the percentages never go back.
    const percents = seen.map((s) => s.percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));

    const video = page.locator("#task-live video").first();
    await video.waitFor();
    await page.waitForFunction(() => (document.querySelector("#task-live video") as PageVideo).readyState >= 1);
    const duration = await video.evaluate((v: PageVideo) => v.duration);
    expect(duration).toBeGreaterThan(3.5);
    await video.evaluate((v: PageVideo) => {
      v.muted = true;
      return v.play();
    });
    await page.waitForFunction(() => {
      const v = document.querySelector("#task-live video") as PageVideo;
      return v.currentTime > 0 && v.readyState >= 2;
    });
    await video.evaluate((v: PageVideo) => v.pause());
  });

  it("follows an image task by polling where EventSource is missing, then shows the image decoded", async () => {
    const body = { prompt: "a red fox in the snow", count: 1, canvas: { type: "preset", tier: "1K", aspect: "1:1" } };
    const res = await api("/v1/images/generations", state.key, body, { "Idempotency-Key": "i-1" });
    expect(res.status).toBe(202);
    state.imageTask = ((await res.json()) as { task_id: string }).task_id;

    const polling = await browser.context.newPage();
    try {
      await polling.addInitScript("delete window.EventSource;");
      const asked: string[] = [];
      polling.on("request", (r) => {
        const path = new URL(r.url()).pathname;
        if (path.startsWith(`/console/tasks/${state.imageTask}/`)) asked.push(path.slice(path.lastIndexOf("/") + 1));
      });
      await polling.goto(`${server.base}/console/tasks/${state.imageTask}`);
      await polling.waitForSelector('#task-live[data-status="succeeded"]', { timeout: 30_000 });
      expect(asked).not.toContain("events");
      expect(asked).toContain("state");
      await polling.waitForFunction(() => {
        const img = document.querySelector("#task-live img") as PageImage | null;
        return !!img && img.complete && img.naturalWidth > 0;
      });
      const width = await polling
        .locator("#task-live img")
        .first()
        .evaluate((i: PageImage) => i.naturalWidth);
      expect(width).toBe(1024);
      const envelope = JSON.parse((await polling.locator("#task-live pre.envelope").textContent()) ?? "{}");
      expect(envelope).toMatchObject({ task_id: state.imageTask, status: "succeeded", capability: "text_to_image" });
    } finally {
      await polling.close();
    }
    await page.goto(`${server.base}/console/tasks/${state.imageTask}`);
    await screenshot("task");
  });

  it("lists the tasks with the API's filters", async () => {
    await page.goto(`${server.base}/console/tasks?capability=text_to_video`);
    expect(await page.locator(`a[href="/console/tasks/${state.videoTask}"]`).count()).toBe(1);
    expect(await page.locator(`a[href="/console/tasks/${state.imageTask}"]`).count()).toBe(0);
    await page.goto(`${server.base}/console/tasks?limit=1`);
    await page.getByRole("link", { name: "Next" }).click();
    // Newest first: the image is on the first page, the video on the second.
    expect(await page.locator(`a[href="/console/tasks/${state.videoTask}"]`).count()).toBe(1);
    await page.goto(`${server.base}/console/tasks`);
    await screenshot("tasks");
  });

  it("shows usage per day and model, and downloads it as CSV", async () => {
    await page.goto(`${server.base}/console/usage`);
    const table = page.locator("table.usage");
    await table.waitFor();
    const text = (await table.textContent()) ?? "";
    const [image, video] = await Promise.all(
      [state.imageTask, state.videoTask].map(async (id) => (await (await api(`/v1/tasks/${id}`, state.key)).json()) as any),
    );
    expect(text).toContain(image.resolved_model);
    expect(text).toContain(video.resolved_model);
    await screenshot("usage");

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^usage-live-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path()) as string, "utf8");
    const lines = csv.split("\r\n");
    expect(lines[0]).toMatch(/^day,model,credits,tasks,completions,succeeded,failed,canceled,input_tokens,/);
    const day = (image.completed_at as string).slice(0, 10);
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^${day},${image.resolved_model},${image.billing.net_charged_credits},1,0,1,0,0,`)),
    );
    expect(lines[lines.length - 1]).toBe("");
  });

  it("runs a text_to_image task from the New task form and follows it live to its image", async () => {
    await page.goto(`${server.base}/console/tasks`);
    await page.getByRole("link", { name: "New task" }).click();
    await page.getByRole("link", { name: "text_to_image" }).click();
    await page.waitForURL(`${server.base}/console/tasks/new?capability=text_to_image`);
    // Test mode unless live is chosen.
    expect(await page.locator("#mode-test").isChecked()).toBe(true);
    await page.getByLabel("prompt", { exact: true }).fill("a paper boat on a pond");
    await page.locator("details summary", { hasText: "More options" }).click();
    await page.getByLabel("canvas").fill('{"type":"preset","tier":"1K","aspect":"1:1"}');
    // A fallback list and provider preferences, each found by its label; other providers allowed by default.
    await page.locator("details summary", { hasText: "Models and providers" }).click();
    await page.getByLabel("Fallback models").fill("flux-2-pro, gpt-image-2");
    await page.getByLabel("Provider order").fill("sandbox");
    await page.getByLabel("Sort the other routes").selectOption("price");
    expect(await page.getByLabel("Allow other providers").isChecked()).toBe(true);
    await screenshot("new-task");
    await page.getByRole("button", { name: "Create task" }).click();
    await page.waitForURL(/\/console\/tasks\/task_[0-9a-f]{64}$/);
    await page.waitForSelector('#task-live[data-status="succeeded"]', { timeout: 30_000 });
    await page.waitForFunction(() => {
      const img = document.querySelector("#task-live img") as PageImage | null;
      return !!img && img.complete && img.naturalWidth > 0;
    });
    const envelope = JSON.parse((await page.locator("#task-live pre.envelope").textContent()) ?? "{}");
    expect(envelope).toMatchObject({
      status: "succeeded",
      capability: "text_to_image",
      input: { prompt: "a paper boat on a pond" },
      models: ["flux-2-pro", "gpt-image-2"],
      resolved_model: "flux-2-pro",
      provider: { name: "sandbox" },
    });
    expect(await page.locator('#task-live [data-field="models"]').textContent()).toBe("flux-2-pro, gpt-image-2");
    expect(envelope.warnings.map((w: { code: string }) => w.code)).toContain("simulated_output");
  });

  it("runs an image_to_image task with an image uploaded from the browser", async () => {
    const width = 96;
    const height = 64;
    const pixels = new Uint8Array(width * height * 3).map((_, i) => (i * 7) % 251);
    const image = Buffer.from(encode({ width, height, data: pixels, channels: 3, depth: 8 }));
    await page.goto(`${server.base}/console/tasks/new?capability=image_to_image`);
    await page.getByLabel("prompt", { exact: true }).fill("the same pattern in blue");
    await page.locator("#field-images").setInputFiles({ name: "pattern.png", mimeType: "image/png", buffer: image });
    await page.locator("details summary", { hasText: "More options" }).click();
    await page.getByLabel("canvas").fill('{"type":"preset","tier":"1K","aspect":"source"}');
    await page.getByRole("button", { name: "Create task" }).click();
    await page.waitForURL(/\/console\/tasks\/task_[0-9a-f]{64}$/);
    await page.waitForSelector('#task-live[data-status="succeeded"]', { timeout: 30_000 });
    const envelope = JSON.parse((await page.locator("#task-live pre.envelope").textContent()) ?? "{}");
    expect(envelope.capability).toBe("image_to_image");
    expect(envelope.input.images[0]).toMatchObject({ type: "artifact", artifact_id: expect.stringMatching(/^art_/) });
    // The uploaded input is previewed beside the output.
    await page.waitForFunction(() => {
      const imgs = [...(document as unknown as { querySelectorAll(s: string): PageImage[] }).querySelectorAll("#task-live img")];
      return imgs.length >= 2 && imgs.every((i) => i.complete && i.naturalWidth > 0);
    });
  });

  it("adds a webhook endpoint, sends it a test event that verifies, and reads the attempt", async () => {
    const got: { headers: Record<string, string>; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => {
        got.push({ headers: req.headers as Record<string, string>, body });
        res.writeHead(200).end("thanks");
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const port = (receiver.address() as AddressInfo).port;
      await page.goto(`${server.base}/console/webhooks`);
      await page.getByLabel("URL (HTTPS)").fill(`http://127.0.0.1:${port}/hooks`);
      await page.getByRole("button", { name: "Add endpoint" }).click();
      await page.waitForURL(`${server.base}/console/webhooks/created`);
      const secret = await page.locator("[data-secret-once] input").inputValue();
      expect(secret).toMatch(/^whsec_/);
      await page.getByRole("link", { name: "Back to the endpoint" }).click();
      state.endpoint = new URL(page.url()).pathname.split("/").pop() as string;
      await page.getByRole("button", { name: "Send test event" }).click();
      expect(await page.textContent(".flash")).toContain("Test event sent: the attempt succeeded.");
      state.delivery = new URL(page.url()).pathname.split("/").pop() as string;
      expect(await page.locator("tr[data-attempt='1']").textContent()).toContain("thanks");
      expect(got).toHaveLength(1);
      const verified = await verifyWebhook<{ type: string }>(got[0]!.body, got[0]!.headers, [secret]);
      expect(verified.payload.type).toBe("webhook.test");
      await screenshot("webhook-delivery");
    } finally {
      receiver.close();
    }
  });

  it("shows the overview, its recent tasks with short ids linking to the whole", async () => {
    await page.goto(`${server.base}/console`);
    const link = page.locator("a[data-task-id]").first();
    const full = (await link.getAttribute("data-task-id")) as string;
    expect(full).toMatch(/^task_[0-9a-f]{64}$/);
    expect(await link.getAttribute("title")).toBe(full);
    expect(await link.textContent()).toBe(`task_${full.slice(5, 11)}…${full.slice(-6)}`);
    expect(await link.getAttribute("href")).toBe(`/console/tasks/${full}`);
    await screenshot("overview");
  });

  it("fits every page to the window at 1,280 px and at a phone's width, every control in reach; the header spans it", async () => {
    // A key with every limit, so that the keys table shows its longest cells.
    await page.goto(`${server.base}/console/keys`);
    await page.getByLabel("Name", { exact: true }).fill("production backend of the studio");
    const limits = page.getByRole("group", { name: "Limits" }).last();
    await limits.getByLabel("Credits per period").fill("250");
    await limits.getByLabel("Models", { exact: true }).fill("flux-2-pro, gpt-image-2");
    await limits.getByLabel("Capabilities", { exact: true }).fill("text_to_image, image_to_image, text_to_video");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.waitForURL(`${server.base}/console/keys/created`);
    const logged = (await (await api("/v1/requests?limit=1", state.key)).json()) as { data: { request_id: string }[] };
    const request = logged.data[0]?.request_id;
    expect(request).toBeDefined();
    // Every page the console's router serves (src/console/app.tsx), each with something to show.
    const paths = [
      "/console",
      "/console/keys",
      "/console/keys/created",
      "/console/signing-keys",
      "/console/signing-keys/created",
      "/console/webhooks",
      "/console/webhooks/created",
      `/console/webhooks/endpoints/${state.endpoint}`,
      `/console/webhooks/deliveries/${state.delivery}`,
      "/console/provider-keys",
      "/console/storage",
      "/console/tasks",
      `/console/tasks/${state.imageTask}`,
      `/console/tasks/${state.videoTask}`,
      "/console/tasks/new",
      "/console/tasks/new?capability=image_to_image",
      "/console/batches",
      "/console/requests",
      `/console/requests/${request}`,
      "/console/usage",
      "/console/members",
      "/console/credits",
      "/console/audit",
      "/console/connections",
      "/console/settings",
      "/console/status",
      "/console/device",
    ];
    const problems: string[] = [];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 860 });
      for (const path of paths) {
        await page.goto(`${server.base}${path}`);
        const where = `${path} at ${width} px`;
        // At a desk's width every table fits its box, its actions in view; on a phone a table may scroll in its box.
        for (const p of await layoutProblems(page, { tablesFit: width >= 1024 })) problems.push(`${where}: ${p}`);
        const header = (await page.evaluate(`(() => {
          const r = document.querySelector("header.top").getBoundingClientRect();
          return { left: r.left, width: r.width, client: document.scrollingElement.clientWidth };
        })()`)) as { left: number; width: number; client: number };
        expect(header.left, where).toBe(0);
        expect(Math.round(header.width), where).toBe(header.client);
      }
      if (width === 1280) {
        await page.goto(`${server.base}/console/audit`);
        await screenshot("audit");
      } else {
        await page.goto(`${server.base}/console/keys`);
        await screenshot("keys-narrow");
      }
    }
    expect(problems).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it("folds the navigation into a menu under 768 px, and shows its links wider", async () => {
    const menu = page.locator("nav.main summary");
    const tasks = page.locator("nav.main").getByRole("link", { name: "Tasks", exact: true });
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`${server.base}/console/keys`);
    expect(await menu.isVisible()).toBe(false);
    expect(await tasks.isVisible()).toBe(true);
    await page.setViewportSize({ width: 390, height: 860 });
    await page.goto(`${server.base}/console/keys`);
    expect(await menu.textContent()).toBe("Menu: API keys");
    expect(await tasks.isVisible()).toBe(false);
    // The header keeps to a strip of the phone's screen.
    const header = await page.locator("header.top").boundingBox();
    expect(header?.height ?? 0).toBeLessThan(860 * 0.2);
    await menu.click();
    expect(await tasks.isVisible()).toBe(true);
    expect(await layoutProblems(page, { tablesFit: false })).toEqual([]);
    await screenshot("menu-narrow");
    await tasks.click();
    await page.waitForURL(`${server.base}/console/tasks`);
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it("copies a long id with the button beside it", async () => {
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.base });
    await page.goto(`${server.base}/console/webhooks`);
    const row = page.locator(`tr[data-delivery-id="${state.delivery}"]`);
    const id = row.locator("td").first().locator(".cut");
    // Cut to its column with an ellipsis; the whole id in its title.
    expect(await id.getAttribute("title")).toBe(state.delivery);
    const overflow = await page.evaluate(
      `getComputedStyle(document.querySelector('tr[data-delivery-id="${state.delivery}"] td .cut')).textOverflow`,
    );
    expect(overflow).toBe("ellipsis");
    expect(await row.getByRole("button", { name: `Copy ${state.delivery}` }).count()).toBe(1);
    const copy = row.locator("td").first().locator("button.copy");
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe("Copied");
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(state.delivery);
  });

  it("logged no error and no CSP violation on any page", () => {
    expect(pageErrors).toEqual([]);
  });
});
