/** Where the request log is sent: OTLP/HTTP traces to a collector, or JSON Lines to a storage destination (`logs:manage`). */
import type { OperationId } from "./generated/operations.js";
import type { RequestOptions } from "./transport.js";
import type { BodyOf, ResultOf } from "./types.js";

type Send = <K extends OperationId>(
  operation: K,
  spec?: RequestOptions & { body?: unknown; path?: Record<string, string> },
) => Promise<ResultOf<K>>;

export function logExports(request: Send) {
  const path = (exportId: string) => ({ export_id: exportId });
  return {
    create: (body: BodyOf<"createLogExport">, options: RequestOptions = {}) => request("createLogExport", { ...options, body }),
    list: (options: RequestOptions = {}) => request("listLogExports", options),
    get: (exportId: string, options: RequestOptions = {}) => request("getLogExport", { ...options, path: path(exportId) }),
    delete: (exportId: string, options: RequestOptions = {}) => request("deleteLogExport", { ...options, path: path(exportId) }),
    /** Delivers what is new now; answers the export after the run (its `last_error`, `delivered_count`). */
    run: (exportId: string, options: RequestOptions = {}) => request("createLogExportRun", { ...options, path: path(exportId) }),
  };
}
