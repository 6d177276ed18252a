import { describe, expect, it } from "vitest";
import { FOLDER_TIES, folderTies, importGraph, importsOf, layerOf, resolveImport, stubCasts, violations } from "./import-rules";

// Every source file's text, bundled into the test by Vite (the tests run in workerd, without a file system).
const SOURCES = Object.fromEntries(
  Object.entries(
    import.meta.glob<string>(["/src/**/*.ts", "/src/**/*.tsx"], { query: "?raw", import: "default", eager: true }),
  ).map(([path, text]) => [path.slice(1), text]),
);

describe("the import graph of src/", () => {
  it("reads every source file", () => {
    expect(Object.keys(SOURCES)).toContain("src/index.ts");
    expect(Object.keys(SOURCES)).toContain("src/mcp/catalog-tools.ts");
    expect(Object.keys(SOURCES).length).toBeGreaterThan(200);
  });

  it("keeps the layers: doors reach the domain only through the services, no door imports another, only the registry imports the sandbox", () => {
    expect(violations(importGraph(SOURCES))).toEqual([]);
  });

  it("casts a Durable Object's answers in one typed facade only", () => {
    expect(stubCasts(SOURCES)).toEqual([]);
  });

  it("has no two folders importing each other but the listed ties, each of which is still there", () => {
    expect(folderTies(importGraph(SOURCES))).toEqual(FOLDER_TIES.map((t) => t.ties).sort());
  });
});

describe("the checker", () => {
  it("finds static, type-only, re-exported and dynamic imports, not those in comments", () => {
    const text = [
      'import { a } from "./a";',
      'import type { B } from "../b";',
      'export { c } from "./c";',
      'import "./side-effect";',
      'const d = await import("./d");',
      "import {",
      "  e,",
      "  type F,",
      '} from "./e";',
      '// import { x } from "./commented";',
      '/* import { y } from "./block"; */',
    ].join("\n");
    expect(importsOf(text)).toEqual(["./a", "../b", "./c", "./side-effect", "./d", "./e"]);
  });

  it("resolves relative specifiers to files, folders to their index", () => {
    const files = new Set(["src/mcp/tool.ts", "src/operations/index.ts", "src/console/layout.tsx"]);
    expect(resolveImport("src/mcp/x.ts", "./tool", files)).toBe("src/mcp/tool.ts");
    expect(resolveImport("src/mcp/x.ts", "../operations", files)).toBe("src/operations/index.ts");
    expect(resolveImport("src/oauth-door/routes.tsx", "../console/layout", files)).toBe("src/console/layout.tsx");
    expect(resolveImport("src/mcp/x.ts", "hono", files)).toBeNull();
  });

  it("sorts files into layers", () => {
    expect(layerOf("src/app.ts")).toEqual({ kind: "root" });
    expect(layerOf("src/rest/routes/tasks.ts")).toEqual({ kind: "door", door: "rest" });
    expect(layerOf("src/mcp/task-tools.ts")).toEqual({ kind: "door", door: "mcp" });
    expect(layerOf("src/console/pages/task.tsx")).toEqual({ kind: "door", door: "console" });
    expect(layerOf("src/oauth-door/routes.tsx")).toEqual({ kind: "door", door: "oauth" });
    expect(layerOf("src/oauth/grants.ts")).toEqual({ kind: "domain" });
    expect(layerOf("src/http/auth.ts")).toEqual({ kind: "plumbing" });
    expect(layerOf("src/services/tasks.ts")).toEqual({ kind: "services" });
    expect(layerOf("src/services/contracts/task-envelope.ts")).toEqual({ kind: "services" });
    expect(layerOf("src/errors/api-error.ts")).toEqual({ kind: "base" });
    expect(layerOf("src/lib/ids.ts")).toEqual({ kind: "base" });
    expect(layerOf("src/tasks/record.ts")).toEqual({ kind: "domain" });
    expect(layerOf("src/env.ts")).toEqual({ kind: "domain" });
  });

  it("fails a graph that breaks each rule, and passes one that keeps them", () => {
    const sources = {
      "src/index.ts": 'import { app } from "./app";',
      "src/app.ts": 'import "./rest/routes/tasks"; import "./mcp/endpoint"; import "./console/app";',
      "src/http/auth.ts": 'import "../services/tasks"; import "../tasks/record"; import "../lib/ids"; import "../console/app";',
      "src/rest/routes/tasks.ts":
        'import "../../http/auth"; import "../../services/tasks"; import "../../errors/api-error"; import "../../mcp/results";',
      "src/mcp/endpoint.ts": 'import "../http/auth"; import "./results"; import "../rest/routes/tasks";',
      "src/mcp/results.ts": 'import type { Envelope } from "../tasks/record";',
      "src/console/app.tsx": 'import "../services/tasks"; import "../lib/ids"; import "../app";',
      "src/services/tasks.ts": 'import "../tasks/record"; import "../http/auth"; import "../rest/routes/tasks";',
      "src/services/contracts/task-envelope.ts": 'import "../../lib/ids";',
      "src/errors/api-error.ts": "",
      "src/lib/ids.ts": "",
      "src/tasks/record.ts": 'import "../lib/ids"; import "../services/contracts/task-envelope";',
      "src/tasks/listing.ts": 'import "./record"; import "../http/auth"; import "../providers/sandbox/adapter";',
      "src/providers/registry.ts": 'import "./sandbox/adapter";',
      "src/providers/sandbox/adapter.ts": 'import "./media";',
      "src/providers/sandbox/media.ts": "",
    };
    expect(violations(importGraph(sources), [])).toEqual([
      "src/console/app.tsx -> src/app.ts: nothing but the Worker's entry imports the app that mounts the doors",
      "src/http/auth.ts -> src/console/app.tsx: the HTTP plumbing imports the console door",
      "src/mcp/endpoint.ts -> src/rest/routes/tasks.ts: the mcp door imports the rest door",
      "src/mcp/results.ts -> src/tasks/record.ts: the mcp door imports the domain",
      "src/rest/routes/tasks.ts -> src/mcp/results.ts: the rest door imports the mcp door",
      "src/services/tasks.ts -> src/http/auth.ts: the services layer imports the HTTP plumbing",
      "src/services/tasks.ts -> src/rest/routes/tasks.ts: the services layer imports the rest door",
      "src/tasks/listing.ts -> src/http/auth.ts: the domain imports the HTTP plumbing",
      "src/tasks/listing.ts -> src/providers/sandbox/adapter.ts: only the provider registry may import the sandbox",
      "src/tasks/record.ts -> src/services/contracts/task-envelope.ts: the domain imports the services",
    ]);
    const BROKEN =
      /import (?:type \{ Envelope \} from )?"[^"]*(mcp\/results|rest\/routes\/tasks|console\/app|http\/auth|sandbox\/adapter|tasks\/record|contracts\/task-envelope|\.\.\/app)";/g;
    const LEGAL: Record<string, string[]> = {
      "src/app.ts": ["rest/routes/tasks", "console/app"],
      "src/providers/registry.ts": ["sandbox/adapter"],
      "src/mcp/endpoint.ts": ["http/auth"],
      "src/rest/routes/tasks.ts": ["http/auth"],
      "src/services/tasks.ts": ["tasks/record"],
    };
    const kept = Object.fromEntries(
      Object.entries(sources).map(([f, t]) => [
        f,
        t.replace(BROKEN, (m, target: string) => (LEGAL[f]?.includes(target) ? m : "")),
      ]),
    );
    expect(violations(importGraph(kept), [])).toEqual([]);
    expect(importGraph(kept).get("src/services/tasks.ts")).toEqual(["src/tasks/record.ts"]);
  });

  it("keeps the sandbox Worker out of the API: the API knows only the contract in src/providers/", () => {
    const graph = importGraph({
      "src/providers/sandbox-stub.ts": 'import type { SandboxService } from "./sandbox-contract";',
      "src/rest/routes/voice-previews.ts": 'import "../../sandbox-worker/encode/mp3";',
      "src/providers/sandbox-contract.ts": "",
      "src/sandbox-worker/render.ts": 'import "./encode/mp3"; import "../providers/sandbox-contract";',
      "src/sandbox-worker/encode/mp3.ts": "",
    });
    expect(violations(graph, [])).toEqual([
      "src/rest/routes/voice-previews.ts -> src/sandbox-worker/encode/mp3.ts: nothing outside the sandbox Worker imports it (its encoders stay out of the API's bundle; the contract is in src/providers/)",
    ]);
  });

  it("finds two folders that import each other, and not a one-way import", () => {
    const graph = importGraph({
      "src/a/one.ts": 'import "../b/two";',
      "src/b/two.ts": 'import "../c/three";',
      "src/c/three.ts": 'import "../b/four";',
      "src/b/four.ts": "",
    });
    expect(folderTies(graph)).toEqual(["src/b <-> src/c"]);
  });

  it("fails an allowance that no import uses any more", () => {
    const graph = importGraph({ "src/mcp/a.ts": "", "src/console/b.ts": "" });
    expect(violations(graph, [{ from: "src/mcp/a.ts", to: "src/console/b.ts", why: "x" }])).toEqual([
      "src/mcp/a.ts -> src/console/b.ts: allowed, but no such import is left; drop the allowance",
    ]);
  });

  it("finds a cast of a stub's answer outside the facade", () => {
    const sources = {
      "src/tasks/task-stub.ts": "return env.TASKS.getByName(name) as unknown as TaskStub;",
      "src/console/pages/new-task.tsx":
        "return (await taskObjectFor(c.env, tenantId, mode, key).read(tenantScope(tenantId))) as unknown as Envelope | null;",
      "src/tasks/admit.ts": "const seen = (await stub.replay(hash, mode)) as unknown as CreateResult | null;",
      "src/providers/ark/tasks.ts": "return t as unknown as ArkTask;",
    };
    expect(stubCasts(sources)).toEqual(["src/console/pages/new-task.tsx", "src/tasks/admit.ts"]);
  });

  it("finds any cast of a stub's answer, not only `as unknown as`, and none in the facades", () => {
    const sources = {
      "src/accounts/account-stub.ts": "return env.ACCOUNTS.getByName(tenantId) as unknown as AccountStub;",
      "src/services/usage.ts": "return accountFor(env, tenantId).usage(q) as Promise<UsageRow[]>;",
      "src/services/batches.ts": "const b = (await batchStubOf(env, id)?.read(scope)) as BatchEnvelope;",
      "src/oauth/limits.ts": "const { allowed } = await rateCounterNamed(env, name).takeStored(60_000, 5);",
      "src/health/status.ts": "const modes = [healthObject(env, p).status()] as const;",
      "src/tasks/task-runner.ts": [
        "await runTaskWebhooks({",
        "  account: accountFor(this.env, rec.tenant_id),",
        "  data: async () => this.present(this.store.load() as TaskRecord),",
        "});",
      ].join("\n"),
    };
    expect(stubCasts(sources)).toEqual(["src/services/batches.ts", "src/services/usage.ts"]);
  });

  it("lets only the Worker's entry and the object's own folder import a Durable Object class", () => {
    const graph = importGraph({
      "src/index.ts": 'export { AccountObject } from "./accounts/account-object";',
      "src/env.ts": 'import type { AccountObject } from "./accounts/account-object";',
      "src/accounts/account-object.ts": "",
      "src/accounts/service.ts": 'import type { AccountObject } from "./account-object";',
      "src/accounts/steps/sweep.ts": 'import type { AccountObject } from "../account-object";',
      "src/accounts/account-rpc.ts": "",
      "src/services/keys.ts": 'import type { AccountRpc } from "../accounts/account-rpc";',
      "src/tasks/task-object.ts": 'import "../accounts/account-object";',
    });
    expect(violations(graph, [])).toEqual([
      "src/env.ts -> src/accounts/account-object.ts: only the Worker's entry and the object's own folder import a Durable Object class (callers use its -rpc.ts interface and -stub.ts facade)",
      "src/tasks/task-object.ts -> src/accounts/account-object.ts: only the Worker's entry and the object's own folder import a Durable Object class (callers use its -rpc.ts interface and -stub.ts facade)",
    ]);
  });
});
