/**
 * Cancel is one act whichever door it comes through: REST, an MCP tool and the console each write
 * the same `task.cancel` entry to the tenant's audit log (action, target, where from), naming the
 * actor each door acts as: the API key, the API key behind the MCP client, the signed-in member.
 */
import { env } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "../../src/audit/audit";
import type { AuditEntry } from "../../src/audit/audit-store";
import { type ConsoleTenant, consoleCall, consoleTenant, csrfOf } from "../console/member-session";
import { call } from "../helpers/api";
import { createImage, waitFor } from "../helpers/tasks";
import { callError, callOk, MCP_URL, workerFetch } from "../mcp/helpers";

const FROM = { "CF-Connecting-IP": "203.0.113.7", "User-Agent": "cancel-audit-test/1.0" };

let t: ConsoleTenant;

beforeAll(async () => {
  t = await consoleTenant();
});

const queued = async () =>
  (await createImage(t, { prompt: "later", metadata: { sandbox_fault: "stay_queued" } })).json.task_id as string;

async function cancelEntries(taskId: string): Promise<AuditEntry[]> {
  const { entries } = await listAudit(env, t.tenant_id, { limit: 200 });
  return entries.filter((e) => e.action === "task.cancel" && e.target === taskId);
}

async function mcpClient(): Promise<Client> {
  const client = new Client({ name: "cancel-audit", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: workerFetch,
    requestInit: { headers: { Authorization: `Bearer ${t.api_key}`, ...FROM } },
  });
  await client.connect(transport);
  return client;
}

/** What every door's entry shares: all but the row's id, time and actor. */
function shape(e: AuditEntry) {
  const { id: _id, at: _at, actor: _actor, ...rest } = e;
  return rest;
}

describe("cancel leaves the same audit entry through every door", () => {
  it("REST, MCP and the console each write task.cancel for the task, from where it was asked", async () => {
    const viaRest = await queued();
    const res = await call(`/v1/tasks/${viaRest}/cancel`, { key: t.api_key, headers: FROM, body: { reason: "rest" } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toBe("canceled");

    const viaMcp = await queued();
    const client = await mcpClient();
    expect((await callOk(client, "cancel_task", { task_id: viaMcp, reason: "mcp" })).structuredContent.status).toBe("canceled");

    const viaConsole = await queued();
    const form = await consoleCall(`/console/tasks/${viaConsole}`, t.owner);
    const posted = await consoleCall(`/console/tasks/${viaConsole}/cancel`, t.owner, {
      headers: FROM,
      form: { _csrf: csrfOf(form.text) },
    });
    expect(posted.status).toBe(303);
    expect((await call(`/v1/tasks/${viaConsole}`, { key: t.api_key })).json.status).toBe("canceled");

    const [rest, mcp, console] = await Promise.all([cancelEntries(viaRest), cancelEntries(viaMcp), cancelEntries(viaConsole)]);
    for (const entries of [rest, mcp, console]) expect(entries).toHaveLength(1);
    const expected = (target: string) => ({
      action: "task.cancel",
      target,
      ip: FROM["CF-Connecting-IP"],
      user_agent: FROM["User-Agent"],
      details: null,
    });
    expect(shape(rest[0] as AuditEntry)).toEqual(expected(viaRest));
    expect(shape(mcp[0] as AuditEntry)).toEqual(expected(viaMcp));
    expect(shape(console[0] as AuditEntry)).toEqual(expected(viaConsole));
    // The actor differs as it should: the key over REST and MCP, the signed-in member in the console.
    expect(rest[0]?.actor).toEqual({ type: "api_key", id: t.key_id });
    expect(mcp[0]?.actor).toEqual({ type: "api_key", id: t.key_id });
    expect(console[0]?.actor).toMatchObject({ type: "user" });
  });

  it("writes nothing when nothing was canceled: an ended task, or one that cannot be stopped", async () => {
    const done = (await createImage(t, { prompt: "finished" })).json.task_id as string;
    await waitFor(t, done);
    const res = await call(`/v1/tasks/${done}/cancel`, { key: t.api_key, body: {} });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("succeeded");

    const client = await mcpClient();
    const stuck = (await createImage(t, { prompt: "stuck", metadata: { sandbox_fault: "uncancelable,hang" } })).json
      .task_id as string;
    await waitFor(t, stuck, (x) => x.status === "running");
    expect((await callError(client, "cancel_task", { task_id: stuck })).code).toBe("conflict");

    expect(await cancelEntries(done)).toEqual([]);
    expect(await cancelEntries(stuck)).toEqual([]);
  });
});
