/**
 * The request log's exports (docs/request-log.md, "Exports"): a tenant's log streamed as OTLP
 * traces to its collector or as JSON Lines files to its storage destination. Kept and run by the
 * tenant's request-log directory (src/request-log/exports/); the REST routes (`logs:manage`) call
 * these. An export has the mode of the key that made it and exports that mode's requests only;
 * another mode's or another tenant's export is as unknown as none (404).
 */
import { recordAudit } from "../audit/audit";
import { type AuditBy, audited } from "../audit/audited";
import type { DestinationsAccountSlice } from "../destinations/account-slice";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { type ModeScope, modeOfNew, modeVisible, requireLive } from "../keys/mode-scope";
import { newId } from "../lib/ids";
import { seal } from "../lib/sealed";
import { checkOutsideUrl, policyFrom } from "../lib/url-policy";
import { type ExportRecord, MAX_EXPORTS } from "../request-log/exports/export-rows";
import { logDirectory } from "../request-log/log-stub";
import { accountSlice } from "../tenancy/account-slice";

export type NewLogExportInput =
  | { kind: "otlp"; url: string; headers?: Record<string, string> }
  | { kind: "destination"; destination_id: string; prefix: string };

/** Headers the export sets itself, or that would change how the post travels. */
const RESERVED_HEADERS = new Set(["content-type", "content-length", "host", "transfer-encoding", "connection", "user-agent"]);
const MAX_HEADERS = 10;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function logExportView(e: ExportRecord) {
  return {
    object: "log_export" as const,
    export_id: e.export_id,
    kind: e.kind,
    mode: e.mode,
    url: e.url,
    header_names: e.header_names,
    destination_id: e.destination_id,
    prefix: e.prefix,
    created_at: new Date(e.created_at).toISOString(),
    last_run_at: iso(e.last_run_at),
    last_success_at: iso(e.last_success_at),
    last_error: e.last_error,
    consecutive_failures: e.failures,
    next_run_at: new Date(e.next_run_at).toISOString(),
    delivered_count: e.delivered_count,
  };
}

function invalid(param: string, reason: string): ApiError {
  return new ApiError("invalid_request", `${param.slice(1)} ${reason}.`, {
    param,
    details: { errors: [{ loc: ["body", ...param.slice(1).split("/")], reason }] },
  });
}

function notFound(exportId: string): ApiError {
  return new ApiError("not_found", `Log export ${exportId} does not exist.`);
}

/** The outside-URL policy of webhook endpoints: HTTPS to a public host (loopback only where configured). */
function checkedUrl(env: Env, raw: string): string {
  const verdict = checkOutsideUrl(raw, policyFrom(env));
  if (!verdict.ok) throw invalid("/url", verdict.reason);
  return verdict.url.toString();
}

function checkedHeaders(headers: Record<string, string>): Record<string, string> {
  const names = Object.keys(headers);
  if (names.length > MAX_HEADERS) throw invalid("/headers", `must name at most ${MAX_HEADERS} headers`);
  const seen = new Set<string>();
  for (const name of names) {
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) throw invalid(`/headers/${name}`, "is set by the export itself");
    if (seen.has(lower)) throw invalid(`/headers/${name}`, "names a header twice");
    seen.add(lower);
  }
  return headers;
}

export async function createLogExport(env: Env, scope: ModeScope, input: NewLogExportInput, by: AuditBy) {
  const tenantId = scope.tenant_id;
  const exportId = newId("lex");
  const base = { export_id: exportId, tenant_id: tenantId, mode: modeOfNew(scope), created_at: Date.now() };
  let record: ExportRecord | null;
  if (input.kind === "otlp") {
    const url = checkedUrl(env, input.url);
    const headers = checkedHeaders(input.headers ?? {});
    const names = Object.keys(headers);
    const sealed = names.length ? await seal(env.STORAGE_ENCRYPTION_KEY, JSON.stringify(headers), exportId) : null;
    record = await logDirectory(env, tenantId).createExport({
      ...base,
      kind: "otlp",
      url,
      header_names: names,
      headers_sealed: sealed,
      destination_id: null,
      prefix: null,
    });
  } else {
    // Destinations are live only (src/keys/mode-scope.ts): a test key has none to name.
    requireLive(scope.mode, "storage_destinations", "/destination_id");
    const destination = await accountSlice<DestinationsAccountSlice>(env, tenantId).storageDestination(input.destination_id);
    if (!destination) throw invalid("/destination_id", `names no storage destination of the tenant ('${input.destination_id}')`);
    record = await logDirectory(env, tenantId).createExport({
      ...base,
      kind: "destination",
      url: null,
      header_names: [],
      headers_sealed: null,
      destination_id: destination.destination_id,
      prefix: input.prefix.replace(/^\/+|\/+$/g, ""),
    });
  }
  if (!record) {
    throw new ApiError("conflict", `A tenant has at most ${MAX_EXPORTS} log exports; delete one first.`, {
      details: { reason: "log_export_limit", limit: MAX_EXPORTS },
    });
  }
  await recordAudit(env, tenantId, audited(by, "log_export.create", exportId, { kind: record.kind, url: record.url }));
  return logExportView(record);
}

export async function listLogExports(env: Env, scope: ModeScope) {
  const list = await logDirectory(env, scope.tenant_id).exports(scope.mode === "both" ? undefined : scope.mode);
  return { object: "list" as const, data: list.map(logExportView), has_more: false as const };
}

async function ownExport(env: Env, scope: ModeScope, exportId: string): Promise<ExportRecord> {
  const e = await logDirectory(env, scope.tenant_id).exportById(exportId);
  if (!e || !modeVisible(scope, e.mode)) throw notFound(exportId);
  return e;
}

export async function getLogExport(env: Env, scope: ModeScope, exportId: string) {
  return logExportView(await ownExport(env, scope, exportId));
}

export async function deleteLogExport(env: Env, scope: ModeScope, exportId: string, by: AuditBy) {
  await ownExport(env, scope, exportId);
  if (!(await logDirectory(env, scope.tenant_id).deleteExport(exportId))) throw notFound(exportId);
  await recordAudit(env, scope.tenant_id, audited(by, "log_export.delete", exportId));
  return { object: "log_export" as const, export_id: exportId, deleted: true as const };
}

/** Delivers what is new now, whatever the schedule says; answers the export after the run (its `last_error` if it failed). */
export async function runLogExport(env: Env, scope: ModeScope, exportId: string) {
  await ownExport(env, scope, exportId);
  const after = await logDirectory(env, scope.tenant_id).runExport(exportId);
  if (!after) throw notFound(exportId);
  return logExportView(after);
}
