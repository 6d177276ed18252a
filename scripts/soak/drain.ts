/**
 * After the traffic: no new work. Every tenant's tasks are listed (whole pages of envelopes),
 * the tasks a client meant to cancel are canceled, and the listing is repeated until every task
 * is terminal and every callback that is due has been delivered (or the time is up). The last
 * listing is written to the history, one line per task, then every tenant's ledger.
 */
import type { History, TaskRecord } from "./history.ts";
import { RECEIVERS } from "./receivers.ts";
import type { SoakServer } from "./server.ts";
import { type Create, RECIPES, TERMINAL, type Tenant, type World } from "./traffic.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Envelope = {
  task_id: string;
  status: string;
  capability: string;
  metadata?: Record<string, string>;
  batch_id?: string;
  custom_id?: string;
  error?: { code?: string } | null;
  provider?: { name?: string; mode?: string } | null;
  callback?: TaskRecord["callback"] & object;
  billing?: { charged_credits: string; refunded_credits: string; net_charged_credits: string };
  progress?: { message?: string | null } | null;
};

/**
 * Every task of a tenant through the listing's cursor: a key lists its own mode's tasks, so the
 * live keys' listing, then the test key's (when the tenant has one).
 */
async function listAll(world: World, tenant: Tenant, op: "drain_list"): Promise<Envelope[] | null> {
  const out: Envelope[] = [];
  for (const keys of [tenant.live_keys, ...(tenant.test_key ? [[tenant.test_key]] : [])]) {
    const listed = await listMode(world, tenant, op, keys);
    if (!listed) return null;
    out.push(...listed);
  }
  return out;
}

async function listMode(world: World, tenant: Tenant, op: "drain_list", keys: string[]): Promise<Envelope[] | null> {
  const out: Envelope[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 200; page++) {
    const key = keys[page % keys.length] as string;
    const a = await world.exchange(
      "drain",
      tenant,
      op,
      "GET",
      `/v1/tasks?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      {
        key,
      },
    );
    if (a.status !== 200) {
      await sleep(a.status === 429 ? 1000 : 300);
      page--;
      if (Date.now() > world.hardStop) return null;
      continue;
    }
    out.push(...(a.json.data as Envelope[]));
    if (!a.json.has_more) return out;
    cursor = a.json.next_cursor;
  }
  return out;
}

/**
 * Whether this task's callback has reached the state its receiver leads to within the run:
 * delivered, failed for the 410 receiver, or pending after two attempts (the third comes five
 * minutes later by the retry schedule; check.ts tells these apart).
 */
function callbackSettled(e: Envelope): boolean {
  const cb = e.callback;
  if (!cb?.url) return true;
  const receiver = /\/hook\/([^/]+)\//.exec(cb.url)?.[1] ?? "";
  const policy = RECEIVERS[receiver];
  if (!policy) return true;
  if (policy.mode === "gone") return cb.status === "failed";
  return cb.status === "delivered" || (cb.status === "pending" && cb.attempt_count >= 2);
}

export interface DrainResult {
  seconds: number;
  tasks: number;
  nonTerminal: number;
  callbacksPending: number;
}

export async function drain(world: World, server: SoakServer, history: History, deadlineMs: number): Promise<DrainResult> {
  const started = Date.now();
  world.hardStop = deadlineMs;
  // The drain reads whole listings: lift the low per-key limit one tenant ran with during traffic.
  for (const t of world.tenants)
    await server.admin("POST", `/admin/v1/tenants/${t.tenant_id}/rate-limit`, { rate_limit_per_minute: null });
  const canceled = new Set<string>();
  let last = new Map<string, Envelope[]>();
  for (;;) {
    const now = new Map<string, Envelope[]>();
    for (const t of world.tenants) {
      const listed = await listAll(world, t, "drain_list");
      now.set(t.tenant_id, listed ?? last.get(t.tenant_id) ?? []);
      for (const e of listed ?? []) world.noteTask(t, null, e.task_id);
    }
    last = now;
    const all = [...now.values()].flat();
    const open = all.filter((e) => !TERMINAL.has(e.status));
    // Known from a 202 but missing from the listing: read it directly.
    const listed = new Set(all.map((e) => e.task_id));
    const missing = [...world.createOf.keys()].filter((id) => !listed.has(id));
    for (const id of missing) {
      const c = world.createOf.get(id) as Create;
      await world.exchange("drain", c.tenant, "drain_read", "GET", `/v1/tasks/${id}`, { key: c.api_key });
    }
    for (const t of world.tenants) {
      for (const e of (now.get(t.tenant_id) ?? []).filter((x) => !TERMINAL.has(x.status))) {
        // A task found only in a listing (its create's answer was lost) says its recipe in metadata.
        const c = world.createOf.get(e.task_id);
        const recipe = RECIPES.find((r) => r.name === (c?.recipe ?? e.metadata?.soak_recipe));
        if (!recipe?.cancel_ms || canceled.has(e.task_id)) continue;
        const a = await world.exchange("drain", t, "drain_cancel", "POST", `/v1/tasks/${e.task_id}/cancel`, {
          key: c?.api_key ?? (t.live_keys[0] as string),
          body: { reason: "soak: drain" },
        });
        if (a.status === 200) canceled.add(e.task_id);
      }
    }
    const pending = all.filter((e) => TERMINAL.has(e.status) && !callbackSettled(e));
    if ((open.length === 0 && pending.length === 0) || Date.now() > deadlineMs) {
      history.write({
        type: "phase",
        at: Date.now(),
        phase: "settle",
        note: `${all.length} tasks, ${open.length} not terminal, ${pending.length} callbacks not settled, ${missing.length} missing from listings`,
      });
      // Give settlements and index writes a moment, then take the final listing.
      await sleep(1500);
      world.hardStop = Date.now() + 60_000;
      const final: Envelope[] = [];
      for (const t of world.tenants) {
        const listed = (await listAll(world, t, "drain_list")) ?? now.get(t.tenant_id) ?? [];
        for (const e of listed) {
          final.push(e);
          const c = world.createOf.get(e.task_id);
          history.write({
            type: "task",
            at: Date.now(),
            tenant: t.name,
            task_id: e.task_id,
            idem_key: c?.idem ?? null,
            recipe: c?.recipe ?? e.metadata?.soak_recipe ?? null,
            receiver: c?.receiver ?? null,
            status: e.status,
            ...(TERMINAL.has(e.status) ? {} : { progress_message: e.progress?.message ?? null }),
            error_code: e.error?.code ?? null,
            capability: e.capability,
            batch_id: e.batch_id ?? null,
            custom_id: e.custom_id ?? null,
            provider: e.provider?.name ?? null,
            mode: e.provider?.mode ?? null,
            callback: e.callback
              ? {
                  url: e.callback.url,
                  status: e.callback.status,
                  attempt_count: e.callback.attempt_count,
                  delivered_at: e.callback.delivered_at ?? null,
                  last_error: e.callback.last_error ?? null,
                }
              : null,
            billing: e.billing
              ? {
                  charged_credits: e.billing.charged_credits,
                  refunded_credits: e.billing.refunded_credits,
                  net_charged_credits: e.billing.net_charged_credits,
                }
              : null,
          });
        }
      }
      return {
        seconds: (Date.now() - started) / 1000,
        tasks: final.length,
        nonTerminal: final.filter((e) => !TERMINAL.has(e.status)).length,
        callbacksPending: final.filter((e) => TERMINAL.has(e.status) && !callbackSettled(e)).length,
      };
    }
    await sleep(1000);
  }
}

/** Every tenant's ledger and balance, as the operator API reports them. */
export async function readLedgers(world: World, server: SoakServer, history: History): Promise<void> {
  for (const t of world.tenants) {
    const ledger = await server.admin("GET", `/admin/v1/tenants/${t.tenant_id}/ledger`);
    const tenant = await server.admin("GET", `/admin/v1/tenants/${t.tenant_id}`);
    history.write({
      type: "ledger",
      at: Date.now(),
      tenant: t.name,
      tenant_id: t.tenant_id,
      ledger: ledger.status === 200 ? ledger.json : null,
      tenant_balance: tenant.status === 200 ? tenant.json.balance : null,
      granted_by_soak: t.credits,
    });
  }
}
