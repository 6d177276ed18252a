/**
 * A task the console creates on the tenant's behalf (the new-task form, a request run again): the
 * member's caller (src/services/member-caller.ts), the form's own Idempotency-Key, admission by
 * the task service as a key's create is admitted, and the call written to the request log with
 * `door: "console"` and the console path it came through (`CONSOLE POST /console/tasks/new`).
 */
import type { Context } from "hono";
import { ApiError } from "../errors/api-error";
import type { Caller } from "../services/accounts";
import { memberCaller } from "../services/member-caller";
import type { OperationSpec } from "../services/operations";
import { logCall, logsBodies, type RequestNote } from "../services/request-log";
import type { Envelope } from "../services/tasks";
import { createTask, taskOfKey, tenantScope } from "../services/tasks";
import type { ConsoleEnv } from "./context";
import { formField } from "./form-body";
import { actorOf } from "./request-meta";

type C = Context<ConsoleEnv>;
type KeyMode = Caller["mode"];

/** The hidden field of a create form: its Idempotency-Key, new with each rendering. */
export const IDEMPOTENCY_FIELD = "idempotency_key";
const CONSOLE_KEY = /^console-[0-9a-f-]{36}$/;

/** A fresh key for a form about to be rendered. */
export function newFormKey(): string {
  return `console-${crypto.randomUUID()}`;
}

/** The form's Idempotency-Key: one a page made, else refused (reload for a new form). */
export function postedKey(c: C): string {
  const key = formField(c, IDEMPOTENCY_FIELD);
  if (!key || !CONSOLE_KEY.test(key)) {
    const reason = "this form has no valid idempotency key: reload the page and send it again";
    throw new ApiError("invalid_request", `${IDEMPOTENCY_FIELD}: ${reason}.`, {
      param: IDEMPOTENCY_FIELD,
      details: { errors: [{ loc: ["body", IDEMPOTENCY_FIELD], reason }] },
    });
  }
  return key;
}

/** The task this form's key made already in `mode`, if any (a form sent again). */
export function madeAlready(c: C, key: string, mode: KeyMode): Promise<Envelope | null> {
  const tenantId = c.get("member").tenant_id;
  return taskOfKey(c.env, tenantId, mode, key, tenantScope(tenantId));
}

/** The signed-in member as the caller of a create in `mode`. */
export function consoleCaller(c: C, mode: KeyMode): Promise<Caller> {
  return memberCaller(c.env, c.get("member"), mode);
}

/** What a logged console create says of itself as it runs. */
export interface ConsoleCreate {
  caller: Caller;
  note: RequestNote;
  /** The request body as the API would have taken it, once known (kept when the tenant logs bodies). */
  body: Record<string, unknown> | null;
}

/**
 * Admits `body` as the member; a form sent twice at once leads to the task the other sending made
 * (its uploads differ, hence the conflict the second one meets).
 */
export async function admitForMember(
  c: C,
  call: ConsoleCreate,
  spec: OperationSpec,
  body: Record<string, unknown>,
  raw: Record<string, unknown>,
  key: string,
): Promise<Envelope> {
  call.body = raw;
  const ctx = {
    env: c.env,
    caller: call.caller,
    requestId: c.get("requestId") ?? crypto.randomUUID(),
    idempotencyKey: key,
    actor: actorOf(c).actor,
    note: call.note,
  };
  try {
    return (await createTask(ctx, spec, body, raw)).envelope;
  } catch (e) {
    if (e instanceof ApiError && (e.code === "idempotency_conflict" || e.code === "request_in_progress")) {
      const made = await madeAlready(c, key, call.caller.mode);
      if (made) {
        call.note.task_id = made.task_id;
        return made;
      }
    }
    throw e;
  }
}

/**
 * Runs a console create and logs it, made or refused: status 202 with its task as the API would
 * answer, or the refusal's status and code. The path is the console's own (`/console/tasks/new`).
 */
export async function loggedCreate(
  c: C,
  opts: { path: string; caller: Caller; replayOf?: string },
  run: (call: ConsoleCreate) => Promise<Envelope>,
): Promise<Envelope> {
  const at = Date.now();
  const call: ConsoleCreate = { caller: opts.caller, note: {}, body: null };
  const requestId = c.get("requestId");
  const log = (status: number, errorCode: string | null, answer: unknown) => {
    const bodies = logsBodies(call.caller);
    logCall(
      c.env,
      {
        door: "console",
        requestId,
        at,
        method: "POST",
        route: `CONSOLE POST ${opts.path}`,
        caller: call.caller,
        status,
        errorCode,
        userAgent: c.req.header("User-Agent") ?? null,
        note: call.note,
        requestBody: bodies && call.body ? JSON.stringify(call.body) : null,
        response: bodies ? Response.json(answer, { status }) : null,
        replayOf: opts.replayOf ?? null,
      },
      (p) => c.executionCtx.waitUntil(p),
    );
  };
  try {
    const envelope = await run(call);
    log(202, null, envelope);
    return envelope;
  } catch (e) {
    const error = e instanceof ApiError ? e : new ApiError("internal_error", "An unexpected error occurred.");
    log(error.status, error.code, { error: error.toBody(requestId) });
    throw e;
  }
}
