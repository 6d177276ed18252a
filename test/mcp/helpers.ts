/**
 * MCP clients for the tests: the official client SDK over its Streamable HTTP transport, whose
 * fetch calls the Worker's own entry point (the current `@modelcontextprotocol/client`, and the
 * 2025-era `@modelcontextprotocol/sdk` 1.x that many agents still run); and raw JSON-RPC posts
 * for what the SDK client does not send (the tasks extension's methods and results).
 */

import { exports } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { BASE, readResponse } from "../helpers/api";
import { runAlarm } from "../helpers/tasks";

export const MCP_URL = `${BASE}/mcp`;
export const MODERN = "2026-07-28";
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
export const RESOURCE_METADATA = `${BASE}/.well-known/oauth-protected-resource/mcp`;
export const TERMINAL = ["succeeded", "failed", "canceled"];

/** The Worker as the client's fetch. */
export function workerFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  return exports.default.fetch(new Request(url, init));
}

/** A connected client: `modern` pins 2026-07-28 (server/discover), `legacy` speaks initialize. */
export async function connect(token: string, era: "modern" | "legacy" = "modern"): Promise<Client> {
  const client = new Client(
    { name: "test-client", version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: workerFetch,
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A connected client of the 1.x SDK (initialize, 2025 protocol revisions). */
export async function connectV1(token: string): Promise<ClientV1> {
  const client = new ClientV1({ name: "test-client-v1", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransportV1(new URL(MCP_URL), {
    fetch: workerFetch,
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A tool call's structured answer, failing the test on a tool error. */
export async function callOk(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
  return result;
}

/** A tool call that must fail: its `structuredContent.error`. */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result)).toBe(true);
  const error = (result.structuredContent as any)?.error;
  expect(error).toBeTypeOf("object");
  expect(typeof error.message).toBe("string");
  expect(typeof error.retryable).toBe("boolean");
  expect(typeof error.request_id).toBe("string");
  expect((result.content as any[])[0]).toMatchObject({ type: "text" });
  return error;
}

/** wait_for_task in short rounds, running the task's alarm between them, until the task ends. */
export async function waitUntilDone(client: Client, taskId: string): Promise<any> {
  for (let i = 0; i < 60; i++) {
    const result = await callOk(client, "wait_for_task", { task_id: taskId, timeout_seconds: 1 });
    const task = result.structuredContent as any;
    if (TERMINAL.includes(task.status)) return result;
    await runAlarm(taskId).catch(() => undefined);
  }
  throw new Error(`task ${taskId} did not end`);
}

let nextId = 1;

/** A 2026-07-28 request as a raw POST: the `_meta` envelope and the headers the transport requires. */
export async function rawModern(
  token: string | null,
  method: string,
  params: Record<string, unknown> = {},
  options: { extensions?: Record<string, unknown>; headers?: Record<string, string> } = {},
) {
  const body = {
    jsonrpc: "2.0",
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        ...(params._meta as Record<string, unknown> | undefined),
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": options.extensions ? { extensions: options.extensions } : {},
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      },
    },
  };
  const name = typeof params.name === "string" ? params.name : typeof params.taskId === "string" ? params.taskId : undefined;
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": method,
    ...(name !== undefined ? { "Mcp-Name": name } : {}),
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
    ...options.headers,
  };
  const res = await readResponse(await workerFetch(MCP_URL, { method: "POST", headers, body: JSON.stringify(body) }));
  return { ...res, message: res.json ?? lastSseMessage(res.text) };
}

/** The last JSON-RPC message of an SSE answer. */
function lastSseMessage(text: string): any {
  const data = text
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).trim())
    .filter((d) => d !== "");
  return data.length ? JSON.parse(data[data.length - 1] as string) : undefined;
}
