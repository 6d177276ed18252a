/**
 * Every tool that tools/list names, through both generations of the official TypeScript client:
 * `@modelcontextprotocol/client` 2.x (2026-07-28, and 2025 stateless) and `@modelcontextprotocol/sdk`
 * 1.x. Once they have listed the tools, both check a result's `structuredContent` against the
 * tool's advertised output schema, and 1.x checks error results too: so every tool's result and
 * every tool's error must pass that check, and the error must reach the caller as the service's
 * error object. New tools are walked as soon as they are listed (and fail here until they have
 * arguments to be called with).
 */
import { env } from "cloudflare:workers";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { jsonSchemaOf } from "../../src/lib/json-schema";
import { toolError } from "../../src/mcp/errors";
import { TOOLS } from "../../src/mcp/tools";
import { putArtifact } from "../../src/media/artifacts";
import { OPERATIONS } from "../../src/operations";
import { EXAMPLE_VIDEO_ARTIFACT_ID } from "../../src/operations/examples";
import { TaskEnvelope } from "../../src/services/contracts/task-envelope";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { validateJsonSchema } from "../helpers/json-schema";
import { mp4 } from "../helpers/media-fixtures";
import { createImage } from "../helpers/tasks";
import { connect, connectV1 } from "./helpers";

/** What the walk needs of a client; both generations' `Client` have it. */
interface ToolClient {
  listTools(): Promise<{ tools: { name: string; outputSchema?: Record<string, unknown> }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<any>;
}

const CLIENTS: [string, (token: string) => Promise<ToolClient>][] = [
  ["@modelcontextprotocol/client 2.x, 2026-07-28", async (token) => (await connect(token, "modern")) as unknown as ToolClient],
  [
    "@modelcontextprotocol/client 2.x, 2025 stateless",
    async (token) => (await connect(token, "legacy")) as unknown as ToolClient,
  ],
  ["@modelcontextprotocol/sdk 1.x", async (token) => (await connectV1(token)) as unknown as ToolClient],
];

interface Fixtures {
  taskId: string;
  model: string;
  batchId: string;
  /** A request in the log (the batch's create). */
  requestId: string;
}

/** A task-creating tool is called with its operation's first documented request body. */
const OPERATION_ARGS = new Map(OPERATIONS.map((o) => [o.capability as string, Object.values(o.examples)[0]?.value]));

/** Arguments each other tool succeeds with. */
const OTHER_ARGS: Record<string, (f: Fixtures) => Record<string, unknown>> = {
  get_task: (f) => ({ task_id: f.taskId }),
  wait_for_task: (f) => ({ task_id: f.taskId, timeout_seconds: 0 }),
  cancel_task: (f) => ({ task_id: f.taskId, reason: "walked by a test" }),
  // Walked after cancel_task: the task has ended by then.
  delete_task_outputs: (f) => ({ task_id: f.taskId }),
  list_tasks: () => ({ limit: 2 }),
  list_models: () => ({ capability: "text_to_image" }),
  get_model: (f) => ({ model: f.model }),
  list_voices: () => ({ language: "en" }),
  get_balance: () => ({}),
  get_quote: () => ({ operation: "text_to_image", arguments: { prompt: "a quoted fixture" } }),
  create_batch: () => ({
    operation: "text_to_image",
    items: [{ custom_id: "fixture-1", body: { prompt: "a batch fixture", metadata: { sandbox_fault: "stay_queued" } } }],
    concurrency: 1,
  }),
  get_batch: (f) => ({ batch_id: f.batchId }),
  list_requests: () => ({ limit: 2, status: "2xx" }),
  get_request: (f) => ({ request_id: f.requestId }),
};

function argsFor(name: string, f: Fixtures): Record<string, unknown> | undefined {
  return OPERATION_ARGS.get(name) ?? OTHER_ARGS[name]?.(f);
}

interface ErrorCase {
  args: Record<string, unknown>;
  /** Called by the tenant with next to no credits. */
  poor?: boolean;
  code: string;
  param?: string;
}

const MISSING_TASK = `task_${"0".repeat(64)}`;

/** The errors each tool is walked with: an argument no tool takes, then the tool's own refusals. */
function errorCases(name: string, f: Fixtures): ErrorCase[] {
  const args = argsFor(name, f) ?? {};
  const cases: ErrorCase[] = [{ args: { ...args, no_such_argument: true }, code: "invalid_request", param: "/no_such_argument" }];
  // The tenant with next to no credits is refused for its balance; where the body names the other
  // tenant's video artifact, that input is refused first, as not found.
  if (OPERATION_ARGS.has(name)) {
    const foreign = JSON.stringify(args).includes(EXAMPLE_VIDEO_ARTIFACT_ID);
    cases.push({ args, poor: true, code: foreign ? "artifact_not_found" : "insufficient_balance" });
  }
  if (name === "get_task" || name === "wait_for_task" || name === "cancel_task" || name === "delete_task_outputs")
    cases.push({ args: { ...args, task_id: MISSING_TASK }, code: "task_not_found" });
  if (name === "get_model") cases.push({ args: { model: "no-such-model" }, code: "not_found" });
  if (name === "text_to_image") cases.push({ args: { ...args, model: "no-such-model" }, code: "unsupported_model" });
  if (name === "list_tasks") cases.push({ args: { limit: 0 }, code: "invalid_request", param: "/limit" });
  if (name === "list_models") cases.push({ args: { capability: "make_coffee" }, code: "invalid_request", param: "/capability" });
  if (name === "list_requests") cases.push({ args: { status: "6xx" }, code: "invalid_request", param: "/status" });
  if (name === "get_request") cases.push({ args: { request_id: "req_not_logged" }, code: "not_found" });
  if (name === "list_voices") cases.push({ args: { category: "robot" }, code: "invalid_request", param: "/category" });
  if (name === "get_quote") {
    cases.push({ args: { ...args, operation: "make_coffee" }, code: "invalid_request", param: "/operation" });
    cases.push({ args: { operation: "text_to_image", arguments: { prompt: "" } }, code: "invalid_request", param: "/prompt" });
  }
  return cases;
}

/** Checks a value against an advertised schema with the project's strict checker (`$defs` is where refs point). */
function violations(schema: Record<string, unknown>, value: unknown): string[] {
  const { $defs: _defs, ...root } = schema;
  return validateJsonSchema(schema, root, value);
}

let rich: TestTenant;
let poor: TestTenant;
let fixtures: Fixtures;

beforeAll(async () => {
  rich = await newTenant({ credits: "100000", permissions: ["catalog:read", "tasks:read", "tasks:write", "chat", "logs:read"] });
  poor = await newTenant({ credits: "0.000000001" });
  // The video examples name an artifact of the caller's: the tenant that succeeds owns it.
  await putArtifact(env.ARTIFACTS, EXAMPLE_VIDEO_ARTIFACT_ID, mp4(5, 1280, 720), {
    tenant_id: rich.tenant_id,
    task_id: "fixture",
    content_type: "video/mp4",
  });
  const task = await createImage(rich, { prompt: "a fixture task", metadata: { sandbox_fault: "stay_queued" } });
  expect(task.status, task.text).toBe(202);
  const batch = await call("/v1/batches", {
    key: rich.api_key,
    headers: { "Idempotency-Key": "mcp-fixture-batch" },
    body: { operation: "text_to_image", items: [{ custom_id: "one", body: { prompt: "a batch fixture" } }] },
  });
  expect(batch.status, batch.text).toBe(202);
  const requestId = batch.headers.get("X-Request-Id") as string;
  // The log is written just after the answer: wait for the batch's entry.
  for (let i = 0; i < 100 && (await call(`/v1/requests/${requestId}`, { key: rich.api_key })).status !== 200; i++)
    await new Promise((r) => setTimeout(r, 20));
  fixtures = { taskId: task.json.task_id, model: "gpt-image-2", batchId: batch.json.batch_id, requestId };
});

describe("output schemas admit tool errors", () => {
  it("the 1.x client's check refuses an error result against the result's schema alone, and admits it against every tool's", () => {
    const validator = new AjvJsonSchemaValidator();
    const error = toolError(new ApiError("task_not_found", "Task 'x' does not exist."), "req_1").structuredContent;
    expect(validator.getValidator(jsonSchemaOf(TaskEnvelope) as any)(error).valid).toBe(false);
    for (const tool of TOOLS) {
      const schema = tool.outputSchema();
      expect(validator.getValidator(schema as any)(error).valid, tool.name).toBe(true);
      expect(violations(schema, error), tool.name).toEqual([]);
      // Still a check: what is neither the result nor an error is refused.
      expect(validator.getValidator(schema as any)({ unexpected: true }).valid, tool.name).toBe(false);
    }
  });
});

for (const [label, open] of CLIENTS) {
  describe(label, () => {
    it("every listed tool's result passes its advertised output schema, in the client and here", async () => {
      const client = await open(rich.api_key);
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThanOrEqual(21);
      for (const tool of tools) {
        const args = argsFor(tool.name, fixtures);
        expect(args, `${tool.name} has no arguments to be walked with`).toBeDefined();
        // The client validates structuredContent itself: a mismatch throws here.
        const result = await client.callTool({ name: tool.name, arguments: args as Record<string, unknown> });
        expect(result.isError, `${tool.name}: ${JSON.stringify(result.structuredContent)}`).toBeFalsy();
        expect(result.structuredContent, tool.name).toBeTypeOf("object");
        expect(violations(tool.outputSchema as Record<string, unknown>, result.structuredContent), tool.name).toEqual([]);
        expect(result.content[0], tool.name).toMatchObject({ type: "text" });
      }
    }, 120_000);

    it("every listed tool's errors reach the caller as the service's error object", async () => {
      const clients = { rich: await open(rich.api_key), poor: await open(poor.api_key) };
      const { tools } = await clients.rich.listTools();
      await clients.poor.listTools();
      let walked = 0;
      for (const tool of tools) {
        for (const c of errorCases(tool.name, fixtures)) {
          const where = `${tool.name} ${JSON.stringify(c.args).slice(0, 120)}`;
          const result = await (c.poor ? clients.poor : clients.rich).callTool({ name: tool.name, arguments: c.args });
          expect(result.isError, where).toBe(true);
          const error = result.structuredContent?.error;
          expect(error, where).toMatchObject({
            code: c.code,
            retryable: false,
            jsonrpc_code: -32602,
            ...(c.param ? { param: c.param } : {}),
          });
          expect(error.request_id, where).toMatch(/\S/);
          expect(result.content[0].text, where).toMatch(new RegExp(`^${c.code}: `));
          expect(violations(tool.outputSchema as Record<string, unknown>, result.structuredContent), where).toEqual([]);
          walked++;
        }
      }
      expect(walked).toBeGreaterThan(tools.length);
    }, 120_000);
  });
}
