/**
 * The table of key modes (src/keys/mode-scope.ts) covers every /v1 operation of the OpenAPI
 * document and every MCP tool, each exactly once and with nothing that does not exist: a route or
 * tool added without deciding what a test-mode key may do with it fails here.
 */
import { describe, expect, it } from "vitest";
import { MODE_TABLE } from "../../src/keys/mode-scope";
import { TOOLS } from "../../src/mcp/tools";
import { call } from "../helpers/api";

const entries = Object.entries(MODE_TABLE);

function owners(kind: "operations" | "tools", name: string): string[] {
  return entries.filter(([, r]) => (r[kind] as readonly string[]).includes(name)).map(([resource]) => resource);
}

describe("the key-mode table", () => {
  it("decides every /v1 operation once, and names only operations that exist", async () => {
    const doc = (await call("/openapi.json")).json;
    const operations: string[] = [];
    for (const [path, methods] of Object.entries<Record<string, { operationId?: string }>>(doc.paths)) {
      if (!path.startsWith("/v1/") && !path.startsWith("/files/")) continue;
      for (const op of Object.values(methods)) if (op.operationId) operations.push(op.operationId);
    }
    expect(operations.length).toBeGreaterThan(40);
    const undecided = operations.filter((id) => owners("operations", id).length !== 1);
    expect(undecided).toEqual([]);
    const named = entries.flatMap(([, r]) => r.operations as readonly string[]);
    expect(named.filter((id) => !operations.includes(id))).toEqual([]);
  });

  it("decides every MCP tool once, and names only tools that exist", () => {
    const tools = TOOLS.map((t) => t.name);
    expect(tools.filter((name) => owners("tools", name).length !== 1)).toEqual([]);
    const named = entries.flatMap(([, r]) => r.tools as readonly string[]);
    expect(named.filter((name) => !tools.includes(name))).toEqual([]);
  });

  it("keeps what test tasks never use live-only", () => {
    const liveOnly = entries.filter(([, r]) => r.rule === "live_only").map(([resource]) => resource);
    expect(liveOnly.sort()).toEqual(["credit_purchases", "provider_keys", "storage_destinations"]);
    for (const resource of ["webhook_endpoints", "webhook_deliveries", "api_keys", "tasks", "batches", "quotes"]) {
      expect(MODE_TABLE[resource as keyof typeof MODE_TABLE].rule).toBe("mode_scoped");
    }
  });
});
