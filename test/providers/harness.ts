/**
 * What the provider tests share: reading a fake's request log, following a task like a client,
 * creating a task on a chosen route, and checking a full refund.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { call, type TestTenant } from "../helpers/api";
import { ledger, newKey } from "../helpers/tasks";
import type { Recorded } from "./fakes/kit";
import type { Subject } from "./subject";

/** What the fake of `provider` recorded for `tag`. */
export async function fakeRequests(provider: string, tag: string): Promise<Recorded<any>[]> {
  const base = (env as unknown as Record<string, string>)[`PROVIDER_${provider.toUpperCase().replaceAll("-", "_")}_BASE_URL`];
  if (!base) return [];
  return (await fetch(`${base}/_fake/requests?tag=${encodeURIComponent(tag)}`)).json();
}

export const count = (records: Recorded[], kind: string) => records.filter((r) => r.kind === kind).length;
let seq = 0;
export const newTag = (name: string) => `${name.replace(/[^A-Za-z0-9]+/g, "-")}-${Date.now()}-${++seq}`;

/** Reads the task; a retryable error (the object restarting after a crash drill) is retried, as a client would. */
export async function readTask(t: TestTenant, id: string) {
  for (let attempt = 0; ; attempt++) {
    const res = await call(`/v1/tasks/${id}`, { key: t.api_key });
    if (res.status !== 200 && res.json?.error?.retryable === true && attempt < 3) continue;
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    return res.json;
  }
}

/** Reads the task like a client until `done`, recording every envelope seen (alarms run on their own). */
export async function follow(
  t: TestTenant,
  id: string,
  done = (x: any) => ["succeeded", "failed", "canceled"].includes(x.status),
) {
  const seen: any[] = [];
  const end = Date.now() + 25_000;
  while (Date.now() < end) {
    const task = await readTask(t, id);
    seen.push(task);
    if (done(task)) return { task, seen };
    await new Promise((r) => setTimeout(r, 60));
  }
  throw new Error(`task ${id} did not finish: ${JSON.stringify(seen.at(-1)?.progress)}`);
}

/** Credits are back where they were: nothing reserved, nothing captured. */
export async function expectRefunded(t: TestTenant, task: any, credits: string) {
  expect(task.billing.net_charged_credits).toBe("0");
  expect(task.billing.refunded_credits).toBe(task.billing.charged_credits);
  const l = (await ledger(t.tenant_id)) as any;
  expect(l.recomputed).toEqual(l.totals);
  expect(l.totals.reserved).toBe("0");
  expect(l.balance).toBe(credits);
}

export async function create(
  t: TestTenant,
  subject: Pick<Subject, "path" | "body" | "provider">,
  tag: string,
  markers: string[],
  metadata: Record<string, string> = {},
  inputs: Record<string, unknown> = {},
) {
  const text = `A lighthouse at dawn #tag:${tag} ${markers.join(" ")}`.trim();
  const res = await call(subject.path, {
    key: t.api_key,
    body: { ...subject.body(text, inputs), metadata: { drill_route: subject.provider, ...metadata } },
    headers: { "Idempotency-Key": newKey() },
  });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return res.json;
}
