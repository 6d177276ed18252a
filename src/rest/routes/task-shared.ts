/** What a task-creating REST request tells admission: its caller, request id and Idempotency-Key header. */
import type { Context } from "hono";
import type { AppEnv } from "../../http/context";
import type { AdmissionContext } from "../../services/tasks";

export function taskContext(c: Context<AppEnv>): AdmissionContext {
  return {
    env: c.env,
    caller: c.get("caller"),
    requestId: c.get("requestId"),
    idempotencyKey: c.req.header("Idempotency-Key"),
    note: c.get("note"),
  };
}
