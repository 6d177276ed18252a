/**
 * Content review tests: the Worker's own app called with a configuration the test chooses
 * (SAFETY_* variables, a fake AI binding), everything else as the project configures it, and the
 * records review leaves behind (the task's `safety`, the tenant's audit log, its ledger).
 */
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { BASE, type CallOptions, readResponse } from "./api";
import { newKey, taskStub } from "./tasks";

/** A request through the app with `overrides` on top of the Worker's environment. */
export async function callWith(overrides: Partial<Env>, path: string, options: CallOptions = {}) {
  const headers = new Headers(options.headers);
  if (options.key) headers.set("Authorization", `Bearer ${options.key}`);
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers.set("Content-Type", "application/json");
  }
  const request = new Request(`${BASE}${path}`, {
    method: options.method ?? (body !== undefined ? "POST" : "GET"),
    headers,
    body,
  });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, { ...(env as unknown as Env), ...overrides }, ctx);
  const read = await readResponse(res);
  await waitOnExecutionContext(ctx);
  return read;
}

/** A task-creating POST (an image by default) under `overrides`, with its own Idempotency-Key unless given. */
export function createWith(
  overrides: Partial<Env>,
  key: string,
  body: Record<string, unknown>,
  idempotencyKey: string = newKey(),
  path = "/v1/images/generations",
) {
  return callWith(overrides, path, { key, body, headers: { "Idempotency-Key": idempotencyKey } });
}

/** The task record's `safety`, read from the task's storage. */
export async function safetyOf(taskId: string): Promise<any> {
  return runInDurableObject(taskStub(taskId), (_o, state) => {
    const row = state.storage.sql.exec<{ record: string }>("SELECT record FROM task WHERE id = 1").one();
    return JSON.parse(row.record).safety;
  });
}

/** The tenant's audit entries of one action, newest first. */
export async function auditOf(tenantId: string, action: string): Promise<any[]> {
  const { entries } = (await env.ACCOUNTS.getByName(tenantId).audit({ limit: 200 })) as { entries: { action: string }[] };
  return entries.filter((e) => e.action === action);
}

/** What a refusal must leave as it was: balance, holds, listed tasks, usage rows. */
export async function accountState(tenantId: string) {
  const account = env.ACCOUNTS.getByName(tenantId);
  const ledger = await account.ledger();
  const tasks = await account.listTasks({ limit: 100 });
  return { balance: ledger.balance, reservations: ledger.reservations, tasks: tasks.task_ids.length };
}
