/**
 * The one way a declared route is served, step by step: the request id; the JSON body, read once
 * under its caps; the operator token or the API key and its permission; the Idempotency-Key; the
 * path, query, header and body schemas; the handler; then, whatever the outcome, the error
 * envelope, the rate headers of an authenticated key (on refusals too, a 403 included), the drain
 * of a body refused before its end, and `X-Request-Id`.
 */
import type { Context } from "hono";
import type { z } from "zod";
import { requireOperator, requirePermission } from "../http/auth";
import type { AppEnv } from "../http/context";
import { errorResponse, toApiError, unsupportedMediaType } from "../http/error-response";
import { readJsonBody } from "../http/json-body";
import { requestIdOf } from "../http/request-id";
import { drainRequest } from "../http/unread-body";
import { type RequestPart, validationError } from "../http/validation";
import type { RateState } from "../services/accounts";
import { authenticate, rateHeaders } from "../services/accounts";
import { logCall, logsBodies, type RequestNote } from "../services/request-log";
import { requireIdempotencyKey } from "../services/tasks";
import { replayOf } from "./replay-marks";
import type { DeclaredRoute } from "./route";

type Handler = (c: Context<AppEnv>) => Response | Promise<Response>;
type Target = "query" | "param" | "header";

/** What the router's validators would have refused a body's type for (its own 415, as 422). */
const JSON_REQUEST = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
const PART: Record<Target | "json", RequestPart> = { query: "query", param: "path", header: "header", json: "body" };

export function pipelineFor(route: DeclaredRoute, handler: Handler) {
  const checks = inputChecks(route);
  const body = bodyOf(route);
  const method = route.method.toUpperCase();
  const readsJson = !route.rawBody && (method === "POST" || method === "PUT" || method === "PATCH");
  const permission = route.permission;
  const logged = `${method} ${route.path}`;

  return async (c: Context<AppEnv>): Promise<Response> => {
    const at = Date.now();
    const request = c.req.raw;
    const requestId = requestIdOf(request.headers.get("X-Request-Id"));
    c.set("requestId", requestId);
    const note: RequestNote = {};
    c.set("note", note);
    let rate: RateState | null = null;
    let response: Response;
    let errorCode: string | null = null;
    let sent: unknown;
    try {
      let value: unknown = {};
      let empty = true;
      if (readsJson) {
        ({ value, empty } = await readJsonBody(request));
        sent = empty ? undefined : value;
        // Handlers that want the body as sent read it through c.req.json(): hand them this one.
        (c.req.bodyCache as { json?: Promise<unknown> }).json = Promise.resolve(value);
      }
      if (route.operator) requireOperator(c.env, request.headers.get("Authorization"));
      else if (permission !== undefined) {
        const caller = await authenticate(c.env, request.headers.get("Authorization") ?? undefined, (p) =>
          c.executionCtx.waitUntil(p),
        );
        rate = caller.rate;
        c.set("caller", caller);
        requirePermission(caller, permission);
      }
      route.guard?.(c);
      if (route.idempotent) requireIdempotencyKey(request.headers.get("Idempotency-Key") ?? undefined);
      for (const check of checks) check(c);
      if (body) checkBody(c, body, value, empty);
      response = await handler(c);
    } catch (err) {
      const error = toApiError(err, requestId);
      errorCode = error.code;
      response = errorResponse(error, requestId);
    }
    await drainRequest(request);
    const caller = c.var.caller;
    if (caller && !route.unlogged) {
      const bodies = logsBodies(caller);
      logCall(
        c.env,
        {
          door: "rest",
          requestId,
          at,
          method,
          route: logged,
          caller,
          status: response.status,
          errorCode,
          userAgent: request.headers.get("User-Agent"),
          note,
          requestBody: bodies && sent !== undefined ? JSON.stringify(sent) : null,
          response: bodies ? response.clone() : null,
          replayOf: replayOf(request),
        },
        (p) => c.executionCtx.waitUntil(p),
      );
    }
    return withHeaders(response, rate ? { ...rateHeaders(rate), "X-Request-Id": requestId } : { "X-Request-Id": requestId });
  };
}

/** The path, query and header schemas of a route, each as a check that stores what it validated. */
function inputChecks(route: DeclaredRoute): ((c: Context<AppEnv>) => void)[] {
  const request = route.request;
  const checks: ((c: Context<AppEnv>) => void)[] = [];
  const add = (target: Target, schema: z.ZodType | undefined, read: (c: Context<AppEnv>) => unknown) => {
    if (!schema) return;
    checks.push((c) => {
      const input = read(c);
      const parsed = schema.safeParse(input);
      if (!parsed.success) throw validationError(PART[target], parsed.error.issues, { route: c.req.routePath, input });
      c.req.addValidatedData(target, parsed.data as never);
    });
  };
  add("query", request?.query as z.ZodType | undefined, queryOf);
  add("param", request?.params as z.ZodType | undefined, (c) => c.req.param());
  const headers = request?.headers as z.ZodObject | undefined;
  if (headers) {
    // Only the declared headers are read (the schema would drop any other), matched without regard
    // to case and handed on as the schema spells them.
    const names = Object.keys(headers.shape);
    add("header", headers, (c) => {
      const given: Record<string, string> = {};
      for (const name of names) {
        const value = c.req.raw.headers.get(name);
        if (value !== null) given[name] = value;
      }
      return given;
    });
  }
  return checks;
}

/** The query as the router's validators see it: one value, or every value of a repeated name. */
function queryOf(c: Context<AppEnv>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(c.req.queries()).map(([k, v]) => [k, v.length === 1 ? (v[0] as string) : v]));
}

interface BodyRule {
  schema: z.ZodType;
  required: boolean;
}

function bodyOf(route: DeclaredRoute): BodyRule | null {
  const body = route.request?.body;
  const media = body?.content?.["application/json"];
  const schema = (media && "schema" in media ? media.schema : undefined) as z.ZodType | undefined;
  if (!schema || typeof (schema as { safeParse?: unknown }).safeParse !== "function") return null;
  return { schema, required: body?.required === true };
}

/** A declared JSON body: its type, then its schema (an optional body left out is `{}`, unchecked). */
function checkBody(c: Context<AppEnv>, rule: BodyRule, value: unknown, empty: boolean) {
  const type = c.req.header("Content-Type");
  if (!empty && type && !JSON_REQUEST.test(type)) throw unsupportedMediaType();
  if (empty && !rule.required) {
    c.req.addValidatedData("json", {});
    return;
  }
  const parsed = rule.schema.safeParse(value);
  if (!parsed.success) throw validationError("body", parsed.error.issues, { route: c.req.routePath, input: value });
  c.req.addValidatedData("json", parsed.data as never);
}

/** `response` with `headers` added (a copy when its own headers are immutable, as a proxied answer's are). */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  try {
    for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    for (const [k, v] of Object.entries(headers)) copy.headers.set(k, v);
    return copy;
  }
}
