import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { call, type TestTenant } from "./api";

let counter = 0;
export const newKey = () => `key-${Date.now()}-${++counter}`;

export function createImage(
  t: TestTenant,
  body: Record<string, unknown>,
  idempotencyKey: string | null = newKey(),
  extra: Record<string, string> = {},
) {
  return call("/v1/images/generations", {
    key: t.api_key,
    body,
    headers: { ...(idempotencyKey === null ? {} : { "Idempotency-Key": idempotencyKey }), ...extra },
  });
}

export const getTask = (t: TestTenant, id: string) => call(`/v1/tasks/${id}`, { key: t.api_key });

export function taskStub(taskId: string) {
  return env.TASKS.get(env.TASKS.idFromString(taskId.slice("task_".length)));
}

/** Runs the task's alarm now, as many times as asked (alarms are at-least-once). */
export async function runAlarm(taskId: string, times = 1) {
  for (let i = 0; i < times; i++) await runDurableObjectAlarm(taskStub(taskId));
}

/** Polls like a client until the task satisfies `done` (driving the alarm between reads). */
export async function waitFor(
  t: TestTenant,
  taskId: string,
  done: (task: any) => boolean = (x) => ["succeeded", "failed", "canceled"].includes(x.status),
) {
  for (let i = 0; i < 100; i++) {
    const res = await getTask(t, taskId);
    expect(res.status).toBe(200);
    if (done(res.json)) return res.json;
    await runAlarm(taskId).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`task ${taskId} did not settle`);
}

export async function taskEvents(taskId: string): Promise<{ kind: string; detail: any }[]> {
  return (await taskStub(taskId).events()) as { kind: string; detail: any }[];
}

export async function ledger(tenantId: string) {
  return env.ACCOUNTS.getByName(tenantId).ledger();
}

/** Moves a task's waits (poll, retry, callback, deadline) to now, then runs its alarm. */
/**
 * A test that writes a task object's storage behind its back (the object is its storage's only
 * writer and remembers what it wrote): the object must read the rows and its alarm again.
 */
export function forgetCached(obj: unknown): void {
  // The object keeps them in its storage layer (src/tasks/task-storage.ts).
  Object.assign((obj as { store: object }).store, { stateJson: null, plan: null, alarmAt: undefined });
}

export async function fastForward(taskId: string, patch: (rec: any) => void = () => {}) {
  await runInDurableObject(taskStub(taskId), async (obj, state) => {
    const row = state.storage.sql
      .exec<{ record: string; plan: string | null }>("SELECT record, plan FROM task WHERE id = 1")
      .toArray()[0];
    if (!row) return;
    const rec = JSON.parse(row.record);
    if (rec.next_poll_at) rec.next_poll_at = Date.now() - 1;
    if (rec.callback?.next_attempt_at) rec.callback.next_attempt_at = Date.now() - 1;
    // The patch sees the whole record: the parts fixed at admission live in `task.plan`.
    const plan = row.plan === null ? {} : JSON.parse(row.plan);
    const whole = { ...rec, ...plan };
    patch(whole);
    for (const k of Object.keys(whole)) if (!(k in plan)) rec[k] = whole[k];
    for (const k of Object.keys(plan)) plan[k] = whole[k];
    state.storage.sql.exec(
      "UPDATE task SET record = ?, plan = ? WHERE id = 1",
      JSON.stringify(rec),
      row.plan === null ? null : JSON.stringify(plan),
    );
    forgetCached(obj);
    await state.storage.setAlarm(Date.now() + 60_000);
  });
  await runAlarm(taskId);
}

/** Asserts the ledger invariant: balance = grants − captures − open reservations, and never negative. */
export async function expectLedgerBalanced(tenantId: string) {
  const l = (await ledger(tenantId)) as any;
  expect(l.recomputed).toEqual(l.totals);
  expect(Number(l.balance)).toBeGreaterThanOrEqual(0);
  return l;
}
