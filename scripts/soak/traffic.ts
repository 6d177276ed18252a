/**
 * The soak's clients: each one a loop over one tenant's API key, mixing task creates (each with an
 * Idempotency-Key; some with a callback), replays of earlier creates (same key, same body),
 * idempotency conflicts (same key, another body), task reads (own and another tenant's),
 * listings, cancels, and chat completions whole and streamed. Every exchange is one history line.
 *
 * A connection failure (the server is down, or died mid-request) is recorded as such (status
 * null) and never read as an HTTP answer; a create that met one is sent again with the same
 * Idempotency-Key and body until the service answers it.
 */
import { seededRandom } from "../../src/lib/random.ts";
import type { History, Op, RequestRecord } from "./history.ts";
import type { Receivers } from "./receivers.ts";

export interface Tenant {
  name: string;
  tenant_id: string;
  credits: string;
  live_keys: string[];
  test_key: string | null;
  /** A key that may read the request log (logs:read). */
  log_key: string;
  signing_key_id: string;
  chat: boolean;
  poor: boolean;
}

/** One task-creating request as the client made it: sent again verbatim for replays and retries. */
export interface Create {
  tenant: Tenant;
  api_key: string;
  idem: string;
  path: string;
  body: Record<string, unknown>;
  recipe: string;
  receiver: string | null;
  task_id: string | null;
  /** The refusal that ended the create, when it did not get a 202. */
  refused: string | null;
  /** When the client means to cancel it next (ms since the epoch); null once canceled. */
  cancel_at: number | null;
  /** The recipe ends by a cancel (its task would otherwise wait for its deadline). */
  wants_cancel: boolean;
}

export interface Answer {
  status: number | null;
  json: any;
  headers: Headers | null;
  net_error?: string;
}

function pick<T>(random: () => number, weighted: [T, number][]): T {
  const total = weighted.reduce((n, [, w]) => n + w, 0);
  let r = random() * total;
  for (const [v, w] of weighted) {
    r -= w;
    if (r < 0) return v;
  }
  return weighted[weighted.length - 1]![0];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * How long a 429 asks to wait: Retry-After (seconds or an HTTP date), else X-RateLimit-Reset
 * (seconds until the window resets), else a second; a little more, so that the retry falls
 * inside the next window rather than on its edge. Never more than a window and a bit.
 */
export function retryAfterMs(headers: Headers | null, now = Date.now()): number {
  const header = headers?.get("Retry-After")?.trim();
  let ms = Number.NaN;
  if (header) ms = /^\d+$/.test(header) ? Number(header) * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(ms)) ms = Number(headers?.get("X-RateLimit-Reset") ?? Number.NaN) * 1000;
  if (!Number.isFinite(ms)) ms = 1000;
  return Math.min(65_000, Math.max(200, ms + 250));
}

const TERMINAL = new Set(["succeeded", "failed", "canceled"]);
const IMAGE_CANVAS = { type: "preset", tier: "1K", aspect: "1:1" };

/**
 * What a create asks for. `fal_*` run on the fake fal queue (flux-2-pro, gpt-image-2, kling-4.0
 * have fal routes and fal is the only configured provider for them), with the fake's scenarios in
 * the prompt; `sbx_*` run on the sandbox with `metadata.sandbox_fault` / `drill_crash_after`.
 * `cancel_ms`: the client cancels the task that long after creating it (a task that would
 * otherwise wait for its deadline).
 */
interface Recipe {
  name: string;
  weight: number;
  poorToo?: boolean;
  testKey?: boolean;
  needsCallback?: boolean;
  cancel_ms?: [number, number];
  build(idem: string): { path: string; body: Record<string, unknown> };
}

const falImage =
  (model: string, scenario: string | null) =>
  (idem: string): { path: string; body: Record<string, unknown> } => ({
    path: "/v1/images/generations",
    body: {
      model,
      prompt: `a lighthouse at dusk, soak ${idem} #tag:${idem}${scenario ? ` #fake:${scenario}` : ""}`,
      canvas: IMAGE_CANVAS,
    },
  });

const sandboxImage =
  (metadata: Record<string, string>) =>
  (idem: string): { path: string; body: Record<string, unknown> } => ({
    path: "/v1/images/generations",
    body: {
      model: "seedream-4.0",
      prompt: `a red fox in the snow, soak ${idem}`,
      canvas: IMAGE_CANVAS,
      ...(Object.keys(metadata).length ? { metadata } : {}),
    },
  });

export const RECIPES: Recipe[] = [
  { name: "fal_ok", weight: 10, poorToo: true, build: falImage("flux-2-pro", null) },
  { name: "fal_gpt_image", weight: 3, build: falImage("gpt-image-2", null) },
  { name: "fal_submit_429", weight: 4, build: falImage("flux-2-pro", "submit_429") },
  { name: "fal_submit_5xx", weight: 4, build: falImage("flux-2-pro", "submit_5xx") },
  { name: "fal_expiring_output", weight: 3, build: falImage("flux-2-pro", "expiring_output") },
  { name: "fal_unknown_status", weight: 2, build: falImage("flux-2-pro", "unknown_status") },
  { name: "fal_safety_input", weight: 2, build: falImage("flux-2-pro", "safety_input") },
  { name: "fal_safety_output", weight: 2, build: falImage("flux-2-pro", "safety_output") },
  { name: "fal_malformed", weight: 1, build: falImage("flux-2-pro", "malformed") },
  { name: "fal_slow_cancel", weight: 3, cancel_ms: [1500, 6000], build: falImage("flux-2-pro", "slow") },
  {
    name: "fal_video",
    weight: 2,
    build: (idem) => ({
      path: "/v1/videos/text-to-video",
      body: { model: "kling-4.0", prompt: `waves on a beach, soak ${idem} #tag:${idem}`, duration: 5 },
    }),
  },
  { name: "sbx_ok", weight: 8, poorToo: true, build: sandboxImage({}) },
  { name: "sbx_test_key", weight: 2, testKey: true, build: sandboxImage({}) },
  { name: "sbx_provider_error", weight: 2, build: sandboxImage({ sandbox_fault: "provider_error" }) },
  { name: "sbx_rate_limited", weight: 1, build: sandboxImage({ sandbox_fault: "rate_limited" }) },
  { name: "sbx_content_filtered", weight: 2, build: sandboxImage({ sandbox_fault: "content_filtered" }) },
  { name: "sbx_output_download", weight: 2, build: sandboxImage({ sandbox_fault: "output_download" }) },
  { name: "sbx_stay_queued_cancel", weight: 2, cancel_ms: [1000, 5000], build: sandboxImage({ sandbox_fault: "stay_queued" }) },
  { name: "sbx_hang_cancel", weight: 2, cancel_ms: [2000, 6000], build: sandboxImage({ sandbox_fault: "hang" }) },
  { name: "sbx_drill_reserve", weight: 1, build: sandboxImage({ drill_crash_after: "reserve" }) },
  { name: "sbx_drill_submit", weight: 1, build: sandboxImage({ drill_crash_after: "submit" }) },
  { name: "sbx_drill_store", weight: 1, build: sandboxImage({ drill_crash_after: "store" }) },
  { name: "sbx_drill_capture", weight: 1, build: sandboxImage({ drill_crash_after: "capture" }) },
  { name: "sbx_drill_callback", weight: 1, needsCallback: true, build: sandboxImage({ drill_crash_after: "callback" }) },
  {
    name: "sbx_prompt_enhance",
    weight: 3,
    build: (idem) => ({
      path: "/v1/videos/prompts/enhance",
      body: { model: "auto", prompt: `a fox runs through a birch forest, soak ${idem}` },
    }),
  },
];

/** Receiver names for callbacks, weighted (receivers.ts RECEIVERS). */
const CALLBACK_RECEIVERS: [string, number][] = [
  ["ok", 4],
  ["flaky", 3],
  ["slow", 1],
  ["gone", 2],
];

/** What the clients share: tenants, every create, every task id seen. */
export class World {
  readonly creates: Create[] = [];
  readonly tasksByTenant = new Map<string, Set<string>>();
  /** Task id → the create that made it. */
  readonly createOf = new Map<string, Create>();
  /** The end of traffic: no new work after it. */
  trafficEnd = 0;
  /** After it, even retries of creates stop. */
  hardStop = 0;
  constructor(
    readonly base: string,
    readonly tenants: Tenant[],
    readonly history: History,
    readonly receivers: Receivers,
  ) {
    for (const t of tenants) this.tasksByTenant.set(t.tenant_id, new Set());
  }

  noteTask(tenant: Tenant, create: Create | null, taskId: string): void {
    this.tasksByTenant.get(tenant.tenant_id)?.add(taskId);
    if (create && !this.createOf.has(taskId)) this.createOf.set(taskId, create);
  }

  /** One exchange with the service, recorded. Never throws. */
  async exchange(
    client: string,
    tenant: Tenant,
    op: Op,
    method: "GET" | "POST",
    path: string,
    o: {
      key: string;
      body?: unknown;
      idem?: string;
      recipe?: string;
      receiver?: string | null;
      stream?: boolean;
      timeoutMs?: number;
    },
  ): Promise<Answer> {
    const at = Date.now();
    const headers: Record<string, string> = { Authorization: `Bearer ${o.key}` };
    if (o.body !== undefined) headers["Content-Type"] = "application/json";
    if (o.idem) headers["Idempotency-Key"] = o.idem;
    let status: number | null = null;
    let json: any = null;
    let resHeaders: Headers | null = null;
    let netError: string | undefined;
    let streamDone: boolean | undefined;
    try {
      const res = await fetch(`${this.base}${path}`, {
        method,
        headers,
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
        signal: AbortSignal.timeout(o.timeoutMs ?? 30_000),
      });
      resHeaders = res.headers;
      const text = await res.text();
      status = res.status;
      if (o.stream && res.status === 200) {
        streamDone = text.includes("data: [DONE]");
        const error = /^data: (\{"error".*)$/m.exec(text)?.[1];
        json = error ? JSON.parse(error) : { stream: true };
      } else {
        try {
          json = JSON.parse(text);
        } catch {
          json = { unparsed: text.slice(0, 200) };
        }
      }
    } catch (e) {
      // The answer never came whole: refused, reset, or timed out. Not an HTTP status.
      status = null;
      const cause = (e as { cause?: { code?: string } }).cause?.code;
      netError = `${(e as Error).name}${cause ? `:${cause}` : ""}: ${String((e as Error).message).slice(0, 120)}`;
    }
    const record: RequestRecord = {
      type: "request",
      at,
      end: Date.now(),
      client,
      tenant: tenant.name,
      op,
      method,
      path: path.split("?")[0] as string,
      status,
      code: typeof json?.error?.code === "string" ? json.error.code : null,
      task_id: typeof json?.task_id === "string" ? json.task_id : null,
      idem_key: o.idem ?? null,
      ...(o.recipe ? { recipe: o.recipe } : {}),
      ...(o.receiver ? { receiver: o.receiver } : {}),
      ...(netError ? { net_error: netError } : {}),
      ...(streamDone !== undefined ? { stream_done: streamDone } : {}),
      ...(Array.isArray(json?.data) ? { listed: json.data.map((t: { task_id: string }) => t.task_id) } : {}),
      ...(typeof json?.status === "string" && typeof json?.task_id === "string" ? { task_status: json.status } : {}),
    };
    this.history.write(record);
    return { status, json, headers: resHeaders, ...(netError ? { net_error: netError } : {}) };
  }

  /**
   * Sends a create (or its replay) until the service answers it: again with the same key and
   * body after a connection failure, `request_in_progress`, a rate limit or a retryable 5xx.
   */
  async send(client: string, c: Create, op: "create" | "replay"): Promise<Answer> {
    let last: Answer = { status: null, json: null, headers: null };
    // A rate limit's refusal is waited out as a client should, until its window resets, even past
    // hardStop: a window is a minute at most, and this client sends nothing else on its key
    // meanwhile, so the retry lands in a window of its own (a drill's create is then admitted).
    let until = this.hardStop;
    for (let attempt = 0; attempt < 60 && Date.now() < until; attempt++) {
      last = await this.exchange(client, c.tenant, op, "POST", c.path, {
        key: c.api_key,
        body: c.body,
        idem: c.idem,
        recipe: c.recipe,
        receiver: c.receiver,
      });
      if (last.status === 202) {
        c.task_id ??= last.json.task_id;
        c.refused = null;
        this.noteTask(c.tenant, c, last.json.task_id);
        return last;
      }
      const code = last.json?.error?.code;
      if (last.status === null) {
        await sleep(400);
        continue;
      }
      if (last.status === 409 && code === "request_in_progress") {
        await sleep(300);
        continue;
      }
      if (last.status === 429) {
        const wait = retryAfterMs(last.headers);
        until = Math.max(until, Date.now() + wait + 5_000);
        await sleep(wait);
        continue;
      }
      if (last.status >= 500 && last.json?.error?.retryable === true) {
        await sleep(500);
        continue;
      }
      if (op === "create") c.refused = code ?? `http_${last.status}`;
      return last;
    }
    if (op === "create" && !c.task_id) c.refused = "gave_up";
    return last;
  }
}

export class Client {
  private n = 0;
  private readonly random: () => number;
  private readonly mine: Create[] = [];

  constructor(
    private readonly world: World,
    readonly name: string,
    private readonly tenant: Tenant,
    private readonly key: string,
    seed: number,
  ) {
    // The mix is reproducible from SOAK_SEED; timing is not.
    this.random = seededRandom(seed);
  }

  async run(): Promise<void> {
    const w = this.world;
    while (Date.now() < w.trafficEnd) {
      const due = this.mine.find((c) => c.cancel_at !== null && c.cancel_at <= Date.now() && c.task_id);
      if (due) await this.cancel(due, true);
      else await this.step();
      // Think time: a 2-core machine also runs the server and the fakes.
      await sleep(150 + this.random() * 250);
    }
  }

  private async step(): Promise<void> {
    const t = this.tenant;
    const ops: [string, number][] = [
      ["create", 40],
      ["replay", 7],
      ["conflict", 2],
      ["read", 18],
      ["read_foreign", 3],
      ["list", 7],
      ["cancel", 3],
      ["chat", t.chat ? 10 : 0],
      ["chat_stream", t.chat ? 10 : 0],
    ];
    const op = t.poor
      ? pick(this.random, [
          ["create", 70],
          ["read", 15],
          ["list", 5],
          ["replay", 10],
        ] as [string, number][])
      : pick(this.random, ops);
    switch (op) {
      case "create":
        return this.create();
      case "replay":
        return this.replay();
      case "conflict":
        return this.conflict();
      case "read":
        return this.read();
      case "read_foreign":
        return this.readForeign();
      case "list":
        return this.list();
      case "cancel": {
        const open = this.mine.filter((c) => c.task_id);
        const c = open[Math.floor(this.random() * open.length)];
        return c ? this.cancel(c, false) : this.read();
      }
      default:
        return this.chat(op === "chat_stream");
    }
  }

  private async create(): Promise<void> {
    const t = this.tenant;
    const recipes = RECIPES.filter((r) => (t.poor ? r.poorToo : true) && (!r.testKey || t.test_key));
    const recipe = pick(
      this.random,
      recipes.map((r) => [r, r.weight] as [Recipe, number]),
    );
    const idem = `${t.name}.${this.name}.${++this.n}`;
    const { path, body } = recipe.build(idem);
    body.metadata = { ...((body.metadata as Record<string, string> | undefined) ?? {}), soak_recipe: recipe.name };
    let receiver: string | null = null;
    if (!t.poor && (recipe.needsCallback || this.random() < 0.5)) {
      // The callback drill spends attempt 1 on its crash: a receiver that refuses once more would
      // push delivery to attempt 3, five minutes later by the schedule, past the run.
      receiver = recipe.needsCallback ? "ok" : pick(this.random, CALLBACK_RECEIVERS);
      body.callback_url = this.world.receivers.urlFor(receiver, t.name);
      if (this.random() < 0.7) body.callback_signing_key_id = t.signing_key_id;
    }
    const c: Create = {
      tenant: t,
      api_key: recipe.testKey && t.test_key ? t.test_key : this.key,
      idem,
      path,
      body,
      recipe: recipe.name,
      receiver,
      task_id: null,
      refused: null,
      cancel_at: null,
      wants_cancel: recipe.cancel_ms !== undefined,
    };
    this.world.creates.push(c);
    this.mine.push(c);
    const a = await this.world.send(this.name, c, "create");
    if (a.status === 202 && recipe.cancel_ms) {
      const [lo, hi] = recipe.cancel_ms;
      c.cancel_at = Date.now() + lo + this.random() * (hi - lo);
    }
  }

  /** The same key and body again: must answer the original 202 (same task) and charge nothing. */
  private async replay(): Promise<void> {
    const done = this.mine.filter((c) => c.task_id || c.refused === "insufficient_balance");
    const c = done[Math.floor(this.random() * done.length)];
    if (!c) return this.create();
    await this.world.send(this.name, c, "replay");
  }

  /** The same key with another body: 409 idempotency_conflict, nothing created. */
  private async conflict(): Promise<void> {
    const done = this.mine.filter((c) => c.task_id);
    const c = done[Math.floor(this.random() * done.length)];
    if (!c) return this.create();
    const body = { ...c.body, prompt: `${String(c.body.prompt)} (changed)` };
    await this.world.exchange(this.name, this.tenant, "conflict", "POST", c.path, {
      key: c.api_key,
      body,
      idem: c.idem,
      recipe: c.recipe,
    });
  }

  private async read(): Promise<void> {
    const ids = [...(this.world.tasksByTenant.get(this.tenant.tenant_id) ?? [])];
    const id = ids[Math.floor(this.random() * ids.length)];
    if (!id) return this.list();
    await this.world.exchange(this.name, this.tenant, "read", "GET", `/v1/tasks/${id}`, { key: this.key });
  }

  /** Another tenant's task: must be 404 task_not_found. */
  private async readForeign(): Promise<void> {
    const others = this.world.tenants.filter((t) => t.tenant_id !== this.tenant.tenant_id);
    const other = others[Math.floor(this.random() * others.length)];
    const ids = other ? [...(this.world.tasksByTenant.get(other.tenant_id) ?? [])] : [];
    const id = ids[Math.floor(this.random() * ids.length)];
    if (!id) return this.list();
    await this.world.exchange(this.name, this.tenant, "read_foreign", "GET", `/v1/tasks/${id}`, { key: this.key });
  }

  private async list(): Promise<void> {
    const status = pick(this.random, [
      ["", 6],
      ["succeeded", 1],
      ["failed", 1],
      ["queued", 1],
    ] as [string, number][]);
    const limit = 5 + Math.floor(this.random() * 30);
    const first = await this.world.exchange(
      this.name,
      this.tenant,
      "list",
      "GET",
      `/v1/tasks?limit=${limit}${status ? `&status=${status}` : ""}`,
      { key: this.key },
    );
    const cursor = first.json?.next_cursor;
    if (first.status === 200 && typeof cursor === "string" && this.random() < 0.5) {
      await this.world.exchange(
        this.name,
        this.tenant,
        "list",
        "GET",
        `/v1/tasks?limit=${limit}${status ? `&status=${status}` : ""}&cursor=${encodeURIComponent(cursor)}`,
        { key: this.key },
      );
    }
  }

  private async cancel(c: Create, scheduled: boolean): Promise<void> {
    const a = await this.world.exchange(this.name, this.tenant, "cancel", "POST", `/v1/tasks/${c.task_id}/cancel`, {
      key: c.api_key,
      body: { reason: scheduled ? "soak: scheduled cancel" : "soak: random cancel" },
    });
    if (!scheduled) return;
    if (a.status === 200 && TERMINAL.has(a.json?.status)) c.cancel_at = null;
    else c.cancel_at = Date.now() + 1000; // down, or still settling: try again
  }

  private async chat(stream: boolean): Promise<void> {
    const tag = `${this.tenant.name}.${this.name}.chat${++this.n}`;
    const scenarios: [Record<string, unknown>, number][] = [
      [{ scenario: "ok" }, 8],
      [
        { scenario: "ok", interval_ms: 40, text: "one two three four five six seven eight nine ten eleven twelve" },
        stream ? 4 : 0,
      ],
      [{ scenario: "status", status: 500, times: 1 }, 2],
      [{ scenario: "status", status: 429, times: 1, retry_after: "0" }, 1],
      [{ scenario: "status", status: 503 }, 1],
      [{ scenario: "content_filter" }, 1],
      [{ scenario: "context_length" }, 1],
      [{ scenario: "drop", after: 2 }, stream ? 1 : 0],
      [{ scenario: "stream_error", after: 2 }, stream ? 1 : 0],
    ];
    const fake = { tag, ...pick(this.random, scenarios) };
    await this.world.exchange(this.name, this.tenant, stream ? "chat_stream" : "chat", "POST", "/v1/chat/completions", {
      key: this.key,
      stream,
      body: {
        model: "deepseek-flash",
        messages: [{ role: "user", content: `Say something short about soak ${tag}.` }],
        max_tokens: 64,
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
        fake,
      },
    });
  }
}

export { TERMINAL };
