/**
 * Runway's task calls: create (`POST /v1/image_to_video`, answered `{id}`), read
 * (`GET /v1/tasks/{id}`) and cancel or delete (`DELETE /v1/tasks/{id}`, answered 204).
 */
import type { ProviderConfig } from "../config";
import { call, readJson } from "../http";
import { ProviderError, type ProviderHandle } from "../types";
import { authHeaders, describeRunway, safeWording } from "./client";
import type { RunwayTask } from "./status";

const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** A 2xx to the submission that cannot be read: the task may exist, so it must not move elsewhere. */
function unreadableAcceptance(config: ProviderConfig, what: string): ProviderError {
  return new ProviderError("model_request_failed", `${config.name} accepted the request but its answer ${what}.`, {
    retryable: true,
    accepted: "unknown",
  });
}

export async function submitTask(
  config: ProviderConfig,
  endpoint: string,
  body: Record<string, unknown>,
  now: number,
): Promise<ProviderHandle> {
  // No retries here: a repeated POST would start (and bill) a second task; the task object decides.
  const res = await call(config, authHeaders(config), {
    method: "POST",
    path: endpoint,
    json: body,
    describe: describeRunway,
    retries: 0,
  });
  const text = await res.text().catch(() => null);
  if (text === null) throw unreadableAcceptance(config, "could not be read");
  let answer: { id?: unknown } | null = null;
  try {
    answer = JSON.parse(text);
  } catch {}
  const id = answer?.id;
  if (typeof id !== "string" || !TASK_ID.test(id)) {
    throw unreadableAcceptance(config, `has no task id (${safeWording(config, text.slice(0, 120), 160)})`);
  }
  return { job_id: id, submitted_at: now, data: { endpoint } };
}

const taskPath = (id: string) => `/v1/tasks/${encodeURIComponent(id)}`;

/** The task as Runway answers it now, or null when Runway no longer knows it (404). */
export async function readTask(config: ProviderConfig, handle: ProviderHandle): Promise<RunwayTask | null> {
  const res = await call(config, authHeaders(config), {
    path: taskPath(handle.job_id),
    describe: describeRunway,
    retries: 2,
    accept: [404],
  });
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  return readJson<RunwayTask>(config, res);
}

/** Cancels a PENDING, THROTTLED or RUNNING task (Runway deletes a finished one instead). */
export async function deleteTask(config: ProviderConfig, handle: ProviderHandle): Promise<"deleted" | "gone"> {
  const res = await call(config, authHeaders(config), {
    method: "DELETE",
    path: taskPath(handle.job_id),
    headers: { Accept: "*/*" },
    describe: describeRunway,
    retries: 2,
    accept: [404],
  });
  await res.body?.cancel();
  return res.status === 404 ? "gone" : "deleted";
}
