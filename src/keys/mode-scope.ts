/**
 * Key modes never cross: a test-mode key reads, creates, changes and triggers nothing of live
 * mode. This is the one table of what each tenant-wide resource does about it (anything not owned
 * by a single task or key), and the checks the services use to hold it. docs/spend-controls.md
 * "Mode" says the same for users; a test holds every /v1 operation and MCP tool to this table.
 *
 * - `mode_scoped`: each row carries a mode; a key sees, changes and triggers only its own mode's
 *   rows, another mode's being as unknown as one that does not exist (404). A console session
 *   acts for the tenant as a whole (both modes) and makes live rows.
 * - `live_only`: test tasks never use the resource, so a test-mode key may not reach it at all:
 *   `403 forbidden`, reads included.
 * - `per_mode`: a read answered in the caller's mode (figures of its own mode only).
 * - `shared`: the same for both modes and harmless to read (the catalog, the status page, the
 *   caller's own key).
 */

import { ApiError } from "../errors/api-error";
import { OPERATIONS } from "../operations";
import type { KeyMode } from "./api-keys";
import type { TaskScope } from "./scope";

/** Whose rows a caller reaches: its tenant and its key's mode, or both modes for a console session. */
export type ModeScope = TaskScope;

export type ModeRule = "mode_scoped" | "live_only" | "per_mode" | "shared";

export interface TenantWideResource {
  rule: ModeRule;
  /** The /v1 operations (OpenAPI `operationId`) and MCP tools that reach it. */
  operations: readonly string[];
  tools: readonly string[];
  /** Where the rule is enforced. */
  enforced: string;
}

export const MODE_TABLE = {
  tasks: {
    rule: "mode_scoped",
    operations: [
      ...OPERATIONS.map((o) => o.operationId),
      "getTask",
      "streamTaskEvents",
      "cancelTask",
      "listTasks",
      "listTaskAssets",
      "deleteTaskOutputs",
    ],
    tools: [
      ...OPERATIONS.map((o) => o.capability),
      "get_task",
      "wait_for_task",
      "cancel_task",
      "delete_task_outputs",
      "list_tasks",
    ],
    enforced: "src/keys/scope.ts (task object names and reads)",
  },
  task_outputs: {
    rule: "mode_scoped",
    operations: ["downloadArtifact", "deleteArtifact", "downloadSignedArtifact"],
    tools: [],
    enforced: "src/tasks/artifact-scope.ts (an output answers in its task's mode)",
  },
  uploads: {
    // An upload is the tenant's input, no task's: either mode's tasks may take it (src/tasks/artifact-scope.ts).
    rule: "shared",
    operations: ["createUpload"],
    tools: [],
    enforced: "src/tasks/artifact-scope.ts",
  },
  batches: {
    rule: "mode_scoped",
    operations: ["createBatch", "listBatches", "getBatch", "listBatchItems", "cancelBatch"],
    tools: ["create_batch", "get_batch"],
    enforced: "src/services/batches.ts (one index per mode)",
  },
  quotes: {
    rule: "mode_scoped",
    operations: ["createQuote"],
    tools: ["get_quote"],
    enforced: "src/services/quotes.ts (a quote is priced and used in its key's mode)",
  },
  api_keys: {
    rule: "mode_scoped",
    operations: ["createKey", "listKeys", "getKey", "updateKey", "revokeKey"],
    tools: [],
    enforced: "src/services/keys.ts",
  },
  webhook_endpoints: {
    rule: "mode_scoped",
    operations: [
      "createWebhookEndpoint",
      "listWebhookEndpoints",
      "getWebhookEndpoint",
      "updateWebhookEndpoint",
      "deleteWebhookEndpoint",
      "createWebhookEndpointRecovery",
      "rotateWebhookEndpointSecret",
      "createWebhookEndpointTest",
    ],
    tools: [],
    enforced: "src/services/webhooks.ts; a task's events fan out to its own mode's endpoints (src/webhooks/endpoint-rows.ts)",
  },
  webhook_deliveries: {
    rule: "mode_scoped",
    operations: ["listWebhookDeliveries", "getWebhookDelivery", "createWebhookDeliveryAttempt"],
    tools: [],
    enforced: "src/services/webhooks.ts (a delivery has its endpoint's mode, a callback its task's)",
  },
  requests: {
    rule: "mode_scoped",
    operations: ["listRequests", "getRequest", "createRequestReplay"],
    tools: ["list_requests", "get_request"],
    enforced:
      "src/services/request-log.ts: a key lists and reads its own mode's entries, and a replay runs as a request of the calling key",
  },
  log_exports: {
    rule: "mode_scoped",
    operations: ["createLogExport", "listLogExports", "getLogExport", "deleteLogExport", "createLogExportRun"],
    tools: [],
    enforced:
      "src/services/log-exports.ts; an export sends its own mode's requests only (a destination export is live only, as destinations are)",
  },
  provider_keys: {
    rule: "live_only",
    operations: ["setProviderKey", "listProviderKeys", "deleteProviderKey"],
    tools: [],
    enforced: "src/services/provider-keys.ts; test tasks run on the sandbox (src/provider-keys/routing.ts)",
  },
  storage_destinations: {
    rule: "live_only",
    operations: [
      "createStorageDestination",
      "listStorageDestinations",
      "getStorageDestination",
      "updateStorageDestination",
      "deleteStorageDestination",
      "createTaskDelivery",
    ],
    tools: [],
    enforced:
      "src/services/storage-destinations.ts; a test create naming one is refused (src/destinations/admission.ts) and test outputs stay in the platform's storage",
  },
  credit_purchases: {
    rule: "live_only",
    operations: ["createCreditCheckout"],
    tools: [],
    enforced: "src/rest/routes/payments.ts (the one door that buys credits)",
  },
  balance: {
    rule: "per_mode",
    operations: ["getBalance"],
    tools: ["get_balance"],
    enforced: "src/services/balance.ts (a test key sees the fixed test balance)",
  },
  usage: {
    rule: "per_mode",
    operations: ["getUsage"],
    tools: [],
    enforced: "src/services/usage.ts",
  },
  catalog_and_status: {
    rule: "shared",
    operations: [
      "listModels",
      "listCatalogModels",
      "listCapabilities",
      "getCapability",
      "getModel",
      "listVoices",
      "getVoice",
      "getStatus",
    ],
    tools: ["list_models", "get_model", "list_voices"],
    enforced: "read-only, the same for both modes",
  },
  chat: {
    rule: "per_mode",
    operations: ["createChatCompletion"],
    tools: [],
    enforced: "src/chat/complete.ts (a test key is served by the sandbox, charged nothing, never on the tenant's own keys)",
  },
  own_key: {
    rule: "shared",
    operations: ["getOwnKey"],
    tools: [],
    enforced: "the calling key itself",
  },
} as const satisfies Record<string, TenantWideResource>;

/*
 * Not reachable by any key, so not in the table: members, the audit log, the tenant's settings
 * (output retention, content review), callback signing keys and the request log
 * are managed by the tenant's people in the console or by the operator, both acting live.
 */

export type Resource = keyof typeof MODE_TABLE;
type LiveOnly = { [R in Resource]: (typeof MODE_TABLE)[R]["rule"] extends "live_only" ? R : never }[Resource];

const NAMES: Record<LiveOnly, string> = {
  provider_keys: "provider keys",
  storage_destinations: "storage destinations",
  credit_purchases: "credits",
};

/** `403 forbidden` for a test-mode key on a live-only resource: its tasks never use it. */
export function requireLive(mode: KeyMode | "both", resource: LiveOnly, param?: string): void {
  if (mode !== "test") return;
  throw new ApiError(
    "forbidden",
    `Test-mode keys cannot manage live resources (${NAMES[resource]}): test tasks never use them. Use a live key.`,
    { ...(param !== undefined ? { param } : {}), details: { reason: "live_resource", resource, mode: "test" } },
  );
}

/** Whether a row of `rowMode` is within `scope` (a console session sees both; rows from before modes are live). */
export function modeVisible(scope: Pick<TaskScope, "mode">, rowMode: KeyMode | null | undefined): boolean {
  return scope.mode === "both" || (rowMode ?? "live") === scope.mode;
}

/** The mode a new row of a mode-scoped resource takes: the key's, or live for a console session. */
export function modeOfNew(scope: Pick<TaskScope, "mode">): KeyMode {
  return scope.mode === "both" ? "live" : scope.mode;
}
