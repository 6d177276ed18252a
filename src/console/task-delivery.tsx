/**
 * The task page's delivery to a storage destination: where the outputs went (each one's key),
 * which failed and why, and "Deliver again" (the same service as POST /v1/tasks/{id}/deliveries).
 */
import type { Hono } from "hono";
import { ApiError } from "../errors/api-error";
import { redeliverTask } from "../services/storage-destinations";
import type { Envelope } from "../services/tasks";
import { tenantScope } from "../services/tasks";
import type { ConsoleEnv } from "./context";
import { redirectWithFlash } from "./flash";
import { actorOf } from "./request-meta";
import { requireRole } from "./session";

interface Copy {
  destination_id: string;
  key: string;
  etag: string | null;
  bytes: number;
}

export function DeliverySection({ t, canDeliver, csrf }: { t: Envelope; canDeliver: boolean; csrf: unknown }) {
  const d = t.delivery;
  if (!d) return null;
  const artifacts = ((t.output as { artifacts?: { index: number; delivered?: Copy[] }[] } | null)?.artifacts ?? []).filter((a) =>
    Array.isArray(a.delivered),
  );
  return (
    <section id="task-delivery" data-delivery-status={d.status}>
      <h2>Delivery</h2>
      <p>
        To <code>{d.destination_id}</code>: <span class={`status status-${d.status}`}>{d.status}</span> after {d.attempt_count}{" "}
        attempt{d.attempt_count === 1 ? "" : "s"}.
      </p>
      {artifacts.length > 0 && (
        <ul>
          {artifacts.flatMap((a) =>
            (a.delivered ?? []).map((copy) => (
              <li data-delivered-key={copy.key}>
                Output {a.index} → <code>{copy.key}</code> in <code>{copy.destination_id}</code>
              </li>
            )),
          )}
        </ul>
      )}
      {d.failed.length > 0 && (
        <ul class="error">
          {d.failed.map((f) => (
            <li data-failed-key={f.key}>
              Output {f.index} (<code>{f.key}</code>) was not delivered: {f.error}
            </li>
          ))}
        </ul>
      )}
      {canDeliver && t.status === "succeeded" && d.status === "failed" && (
        <form method="post" action={`/console/tasks/${t.task_id}/deliveries`} class="inline">
          {csrf}
          <button type="submit">Deliver again</button>
        </form>
      )}
    </section>
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.post("/tasks/:id/deliveries", requireRole("tasks:write"), async (c) => {
    const taskId = c.req.param("id");
    const back = `/console/tasks/${taskId}`;
    try {
      const env = await redeliverTask(c.env, taskId, tenantScope(c.get("member").tenant_id), null, actorOf(c));
      const failed = env.delivery?.failed.length ?? 0;
      return redirectWithFlash(
        c,
        back,
        failed === 0
          ? { kind: "ok", text: "Every output is in the storage destination." }
          : { kind: "error", text: `${failed} output(s) could not be delivered again; the bucket's answer is shown below.` },
      );
    } catch (e) {
      if (!(e instanceof ApiError) || e.code === "task_not_found") throw e;
      return redirectWithFlash(c, back, { kind: "error", text: e.message });
    }
  });
}
