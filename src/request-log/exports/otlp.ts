/**
 * Log entries as OTLP/HTTP JSON traces (the OpenTelemetry protocol's JSON encoding: ids in hex,
 * 64-bit integers and times as decimal strings, enums as numbers): one trace per request, its root
 * span the request itself, a child for its admission, one per provider attempt the entry knows, and
 * one per later stage of a task (storing its outputs, delivering them, each callback attempt).
 * Attributes follow the OpenTelemetry HTTP and GenAI conventions, plus the service's own
 * (`credits.charged`, `task.id`, `request.id`). Ids are derived from the request id, so a batch
 * sent again names the same traces and spans and a collector can drop the repeats.
 */
import { sha256Hex } from "../../lib/crypto";
import { OPERATIONS } from "../../operations";
import type { Attempt, Stage } from "../entry";
import type { ExportRow } from "../task-attempts";

type AnyValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };
interface KeyValue {
  key: string;
  value: AnyValue;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: 1 | 2 | 3;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  /** 0 unset, 1 ok, 2 error. */
  status: { code: 0 | 1 | 2; message?: string };
}

export const SCOPE_NAME = "media-gateway.request-log";
const SPAN_SERVER = 2;
const SPAN_INTERNAL = 1;
const SPAN_CLIENT = 3;

const CAPABILITY_OF = new Map(OPERATIONS.map((o) => [o.path as string, o.capability as string]));

/** The attributes whose value is known, typed as OTLP wants them. */
function attributes(values: Record<string, string | number | boolean | null | undefined>): KeyValue[] {
  const out: KeyValue[] = [];
  for (const [key, v] of Object.entries(values)) {
    if (v === null || v === undefined) continue;
    if (typeof v === "string") out.push({ key, value: { stringValue: v } });
    else if (typeof v === "boolean") out.push({ key, value: { boolValue: v } });
    else if (Number.isInteger(v)) out.push({ key, value: { intValue: String(v) } });
    else out.push({ key, value: { doubleValue: v } });
  }
  return out;
}

/** Ms since the epoch as OTLP's nanoseconds (a decimal string: past 2^53 as a number). */
const nanos = (ms: number) => `${Math.round(ms)}000000`;

/** `POST /v1/chat/completions` → "chat"; a task create → its capability; an MCP create tool → its name. */
export function operationName(route: string): string | null {
  const [head, rest] = route.split(" ", 2) as [string, string | undefined];
  if (rest === "/v1/chat/completions" || route === "MCP chat") return "chat";
  if (head === "MCP" && rest) return [...CAPABILITY_OF.values()].includes(rest) ? rest : null;
  return rest ? (CAPABILITY_OF.get(rest) ?? null) : null;
}

/** A chat answer's token counts, when its body was kept and says them. */
function usageOf(row: ExportRow): { input: number | null; output: number | null } {
  if (!row.response_body) return { input: null, output: null };
  try {
    const usage = (JSON.parse(row.response_body) as { usage?: Record<string, unknown> }).usage ?? {};
    const n = (v: unknown) => (Number.isInteger(v) ? (v as number) : null);
    return { input: n(usage.prompt_tokens ?? usage.input_tokens), output: n(usage.completion_tokens ?? usage.output_tokens) };
  } catch {
    // A body cut at 64 KiB, or not JSON (a stream): no counts.
    return { input: null, output: null };
  }
}

async function hexOf(text: string, chars: number): Promise<string> {
  return (await sha256Hex(text)).slice(0, chars);
}

function attemptSpan(a: Attempt, i: number, traceId: string, spanId: string, parent: string, op: string | null): OtlpSpan {
  const start = Date.parse(a.started_at);
  const failed = a.outcome === "failed" || a.outcome === "timeout" || a.outcome === "refused";
  return {
    traceId,
    spanId,
    parentSpanId: parent,
    name: `${op ?? "attempt"} ${a.upstream_model}`,
    kind: SPAN_CLIENT,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(start + (a.duration_ms ?? 0)),
    attributes: attributes({
      "gen_ai.system": a.provider,
      "gen_ai.provider.name": a.provider,
      "gen_ai.operation.name": op,
      "gen_ai.request.model": a.upstream_model,
      "attempt.index": i,
      "attempt.outcome": a.outcome,
      "attempt.key": a.key,
      "http.response.status_code": a.http_status,
      "error.type": a.error?.code,
      "error.message": a.error?.message,
    }),
    status: failed ? { code: 2, message: a.error?.message ?? a.outcome } : { code: 0 },
  };
}

/** A stage's span: still under way, it ends when the export reads it (status unset). */
function stageSpan(s: Stage, traceId: string, spanId: string, parent: string, taskId: string | null, now: number): OtlpSpan {
  const start = Date.parse(s.started_at);
  return {
    traceId,
    spanId,
    parentSpanId: parent,
    name: s.name,
    kind: s.name === "store_outputs" ? SPAN_INTERNAL : SPAN_CLIENT,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(s.duration_ms === null ? Math.max(start, now) : start + s.duration_ms),
    attributes: attributes({ "stage.outcome": s.outcome, "task.id": taskId, "error.message": s.error }),
    status:
      s.outcome === "failed" ? { code: 2, message: s.error ?? "failed" } : s.outcome === "succeeded" ? { code: 1 } : { code: 0 },
  };
}

/** The spans of one entry: the request, its admission, each provider attempt, each later stage. */
export async function spansOf(row: ExportRow, now = Date.now()): Promise<OtlpSpan[]> {
  const traceId = await hexOf(row.request_id, 32);
  const [rootId, admissionId] = await Promise.all([
    hexOf(`${row.request_id}/request`, 16),
    hexOf(`${row.request_id}/admission`, 16),
  ]);
  const op = operationName(row.route);
  const attempts = row.attempts ?? [];
  const served = [...attempts].reverse().find((a) => a.outcome === "succeeded" || a.outcome === "accepted");
  const usage = op === "chat" ? usageOf(row) : { input: null, output: null };
  const end = row.at + row.duration_ms;
  const path = row.route.includes(" /") ? row.route.slice(row.route.indexOf(" ") + 1) : row.route;
  const root: OtlpSpan = {
    traceId,
    spanId: rootId,
    name: row.route,
    kind: SPAN_SERVER,
    startTimeUnixNano: nanos(row.at),
    endTimeUnixNano: nanos(end),
    attributes: attributes({
      "http.request.method": row.method,
      "http.route": path,
      "http.response.status_code": row.status,
      "gen_ai.operation.name": op,
      "gen_ai.request.model": row.model,
      "gen_ai.response.model": served?.upstream_model,
      "gen_ai.usage.input_tokens": usage.input,
      "gen_ai.usage.output_tokens": usage.output,
      "credits.charged": row.charged,
      "credits.settled": row.charged === null ? null : row.settled,
      "task.id": row.task_id,
      "batch.id": row.batch_id,
      "request.id": row.request_id,
      "request.replay_of": row.replay_of,
      "api_key.id": row.key_id,
      "api_key.mode": row.mode,
      "request.door": row.door,
      "error.type": row.error_code,
      "user_agent.original": row.user_agent,
    }),
    // The HTTP convention for a server: only a 5xx is the server's error.
    status: row.status >= 500 ? { code: 2, message: row.error_code ?? `HTTP ${row.status}` } : { code: 0 },
  };
  const firstAttempt = attempts.length ? Math.min(...attempts.map((a) => Date.parse(a.started_at))) : Number.NaN;
  const admission: OtlpSpan = {
    traceId,
    spanId: admissionId,
    parentSpanId: rootId,
    name: "admission",
    kind: SPAN_INTERNAL,
    startTimeUnixNano: nanos(row.at),
    endTimeUnixNano: nanos(Number.isFinite(firstAttempt) && firstAttempt < end ? Math.max(row.at, firstAttempt) : end),
    attributes: attributes({
      "admission.outcome": row.status < 400 ? "accepted" : "refused",
      "error.type": row.status < 400 ? null : row.error_code,
    }),
    status: row.status < 400 ? { code: 0 } : { code: 2, message: row.error_code ?? `HTTP ${row.status}` },
  };
  const attemptIds = await Promise.all(attempts.map((_, i) => hexOf(`${row.request_id}/attempt/${i}`, 16)));
  const stages = row.stages ?? [];
  const stageIds = await Promise.all(stages.map((s, i) => hexOf(`${row.request_id}/${s.name}/${i}`, 16)));
  return [
    root,
    admission,
    ...attempts.map((a, i) => attemptSpan(a, i, traceId, attemptIds[i] as string, rootId, op)),
    ...stages.map((s, i) => stageSpan(s, traceId, stageIds[i] as string, rootId, row.task_id, now)),
  ];
}

/** The body of one post: every entry's spans under one resource (the tenant) and one scope. */
export async function tracesBody(tenantId: string, rows: ExportRow[]): Promise<string> {
  const now = Date.now();
  const spans = (await Promise.all(rows.map((r) => spansOf(r, now)))).flat();
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: attributes({ "service.name": "media-gateway", "tenant.id": tenantId }) },
        scopeSpans: [{ scope: { name: SCOPE_NAME, version: "1" }, spans }],
      },
    ],
  });
}
