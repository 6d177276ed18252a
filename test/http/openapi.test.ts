import { beforeAll, describe, expect, it } from "vitest";
import { PROMPT_ENHANCER_MODEL } from "../../src/operations/videos";
import { DOCS_SCRIPT_PATH } from "../../src/rest/docs";
import { call, expectError, newTenant } from "../helpers/api";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** Every operation of the document, whoever declared it. */
function operations(doc: any): { method: string; path: string; op: any }[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] })),
  );
}

let doc: any;
beforeAll(async () => {
  doc = (await call("/openapi.json")).json;
});

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 and covers every route", async () => {
    const res = await call("/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(doc.openapi).toBe("3.1.0");
    const ops = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`),
    );
    for (const op of [
      "GET /v1/models",
      "GET /v1/catalog/models",
      "GET /v1/catalog/capabilities",
      "GET /v1/catalog/capabilities/{capability}",
      "GET /v1/catalog/models/{model}",
      "GET /v1/voices",
      "GET /v1/voices/{voice_id}",
      "POST /admin/v1/tenants",
      "GET /admin/v1/tenants/{tenant_id}",
      "POST /admin/v1/tenants/{tenant_id}/disable",
      "POST /admin/v1/tenants/{tenant_id}/enable",
      "POST /admin/v1/tenants/{tenant_id}/credits",
      "POST /admin/v1/tenants/{tenant_id}/api-keys",
      "POST /admin/v1/api-keys/{key_id}/revoke",
      "POST /admin/v1/tenants/{tenant_id}/callback-signing-keys",
      "POST /admin/v1/callback-signing-keys/{id}/retire",
      "POST /v1/images/generations",
      "POST /v1/images/image-to-image",
      "POST /v1/images/edits",
      "POST /v1/images/responses",
      "POST /v1/videos/prompts/enhance",
      "POST /v1/videos/text-to-video",
      "POST /v1/videos/image-to-video",
      "POST /v1/videos/reference-to-video",
      "POST /v1/videos/frames-to-video",
      "POST /v1/videos/extend",
      "POST /v1/videos/responses",
      "POST /v1/music/text-to-music",
      "POST /v1/audio/speech",
      "GET /v1/tasks",
      "GET /v1/tasks/{task_id}",
      "POST /v1/tasks/{task_id}/cancel",
      "GET /v1/tasks/{task_id}/assets",
      "GET /v1/artifacts/{artifact_id}",
    ]) {
      expect(ops).toContain(op);
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.schemas.ErrorEnvelope).toBeDefined();
    // Public operations carry their lifecycle marker.
    expect(doc.paths["/v1/models"].get["x-lifecycle"]).toBe("preview");
    // Every task-creating operation documents its body, the Idempotency-Key header and 202.
    for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
      const post = item.post;
      if (!post?.responses?.["202"]) continue;
      expect(post.requestBody.content["application/json"].schema, path).toBeDefined();
      expect(
        post.parameters.some((p: any) => p.in === "header" && p.name.toLowerCase() === "idempotency-key"),
        path,
      ).toBe(true);
      expect(post["x-lifecycle"], path).toBe("preview");
    }
    for (const name of ["MediaInput", "VideoReference", "EditRegion", "Canvas", "PaletteEntry", "TaskEnvelope", "Usage"]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });

  it("gives every operation a unique lowerCamelCase, verb-first operationId", () => {
    const all = operations(doc);
    expect(all.length).toBeGreaterThanOrEqual(40);
    const missing = all.filter((o) => typeof o.op.operationId !== "string").map((o) => `${o.method} ${o.path}`);
    expect(missing).toEqual([]);
    const ids = all.map((o) => o.op.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      // Operator operations carry an `admin` prefix before their verb.
      const verbFirst = id.replace(/^admin([A-Z])/, (_, c: string) => c.toLowerCase());
      expect(verbFirst, id).toMatch(
        /^(create|get|list|cancel|download|delete|stream|set|grant|revoke|retire|rotate|disable|enable|update)[A-Z]/,
      );
    }
    const byRoute = Object.fromEntries(all.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o.op.operationId]));
    expect(byRoute).toMatchObject({
      "POST /v1/images/generations": "createImageGeneration",
      "POST /v1/images/image-to-image": "createImageFromImages",
      "POST /v1/images/edits": "createImageEdit",
      "POST /v1/images/responses": "createImageUnderstanding",
      "POST /v1/videos/prompts/enhance": "createVideoPromptEnhancement",
      "POST /v1/videos/text-to-video": "createVideoFromText",
      "POST /v1/videos/image-to-video": "createVideoFromImage",
      "POST /v1/videos/reference-to-video": "createVideoFromReferences",
      "POST /v1/videos/frames-to-video": "createVideoFromFrames",
      "POST /v1/videos/extend": "createVideoExtension",
      "POST /v1/videos/responses": "createVideoUnderstanding",
      "POST /v1/music/text-to-music": "createMusicFromText",
      "POST /v1/audio/speech": "createSpeech",
      "POST /v1/chat/completions": "createChatCompletion",
      "GET /v1/tasks": "listTasks",
      "GET /v1/tasks/{task_id}": "getTask",
      "POST /v1/tasks/{task_id}/cancel": "cancelTask",
      "GET /v1/tasks/{task_id}/assets": "listTaskAssets",
      "GET /v1/artifacts/{artifact_id}": "downloadArtifact",
      "GET /v1/models": "listModels",
      "GET /v1/catalog/models": "listCatalogModels",
      "GET /v1/catalog/models/{model}": "getModel",
      "GET /v1/catalog/capabilities": "listCapabilities",
      "GET /v1/catalog/capabilities/{capability}": "getCapability",
      "GET /v1/voices": "listVoices",
      "GET /v1/voices/{voice_id}": "getVoice",
      "POST /admin/v1/tenants": "adminCreateTenant",
      "POST /admin/v1/tenants/{tenant_id}/credits": "adminGrantCredits",
    });
  });

  it("applies the bearer scheme to every /v1 operation, the operator token to /admin, and says so elsewhere", () => {
    for (const { method, path, op } of operations(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      // The status page is public: anyone may see whether the service is up.
      if (path === "/v1/status") expect(op.security, where).toEqual([]);
      else if (path.startsWith("/v1/")) expect(op.security, where).toEqual([{ bearerAuth: [] }]);
      else if (path.startsWith("/admin/")) expect(op.security, where).toEqual([{ adminToken: [] }]);
      // Public routes (signed links, previews) state that they need no credential.
      else expect(Array.isArray(op.security), where).toBe(true);
    }
    expect(doc.components.securitySchemes.adminToken).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("documents the Idempotency-Key header as required, 1 to 128 characters, on every task-creating operation", () => {
    const creates = operations(doc).filter((o) => o.op.responses?.["202"]);
    expect(creates.length).toBeGreaterThanOrEqual(13);
    for (const { path, op } of creates) {
      const header = op.parameters.find((p: any) => p.in === "header" && p.name.toLowerCase() === "idempotency-key");
      expect(header, path).toMatchObject({ name: "Idempotency-Key", required: true, schema: { minLength: 1, maxLength: 128 } });
    }
  });

  it("keeps the server's own answer to a missing or malformed Idempotency-Key", async () => {
    const { api_key } = await newTenant();
    const post = (headers: Record<string, string>) =>
      call("/v1/images/generations", { key: api_key, body: { prompt: "x" }, headers });
    const missing = expectError(await post({}), 422, "invalid_request");
    expect(missing.message).toBe("Idempotency-Key: the Idempotency-Key header is required on task-creating requests.");
    expect(missing.details.errors).toEqual([
      { loc: ["header", "idempotency-key"], reason: "the Idempotency-Key header is required on task-creating requests" },
    ]);
    const long = expectError(await post({ "Idempotency-Key": "k".repeat(129) }), 422, "invalid_request");
    expect(long.details.errors).toEqual([{ loc: ["header", "idempotency-key"], reason: "must be 1 to 128 characters" }]);
    expect((await post({ "Idempotency-Key": "k".repeat(128) })).status).toBe(202);
  });

  it("documents `model` with its real default on every operation that takes one", () => {
    const bodySchema = (path: string) => {
      const schema = doc.paths[path].post.requestBody.content["application/json"].schema;
      return schema.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema;
    };
    // The spec makes `model` required (no default) for music and video understanding; elsewhere it defaults to `auto`.
    const required = new Set(["/v1/music/text-to-music", "/v1/videos/responses"]);
    const ignored = new Set(["/v1/videos/prompts/enhance"]);
    // A replay's `model` replaces the model of the request it runs again: no default of its own.
    const replays = new Set(["/v1/requests/{request_id}/replay"]);
    const bodies = operations(doc).filter(
      (o) => o.method === "post" && o.op.requestBody?.content?.["application/json"] && bodySchema(o.path).properties?.model,
    );
    expect(bodies.length).toBeGreaterThanOrEqual(14);
    for (const { path } of bodies) {
      const schema = bodySchema(path);
      const model = schema.properties.model;
      if (replays.has(path)) {
        expect(model.default, path).toBeUndefined();
        expect(model.description, path).toContain("another model");
      } else if (required.has(path)) {
        // Required unless a `models` list stands in for it (the body's check refuses both missing).
        expect(model.default, path).toBeUndefined();
        expect(model.description, path).toMatch(/^Required unless `models` is sent, no default: `auto` or /);
      } else if (ignored.has(path)) {
        expect(schema.required ?? [], path).not.toContain("model");
        expect(model.default, path).toBeUndefined();
        expect(model.description, path).toContain(`always runs on \`${PROMPT_ENHANCER_MODEL}\``);
      } else {
        expect(model.default, path).toBe("auto");
        expect(schema.required ?? [], path).not.toContain("model");
        expect(model.description, path).toMatch(/^Default `auto`: /);
      }
    }
  });

  it("names the enhancer's real model: the catalog's only card for video_prompt_enhance", async () => {
    const { api_key } = await newTenant();
    const detail = (await call("/v1/catalog/capabilities/video_prompt_enhance", { key: api_key })).json;
    expect(detail.models.map((m: any) => m.model)).toEqual([PROMPT_ENHANCER_MODEL]);
  });

  it("serves an API reference page that loads its viewer from this deployment", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain(DOCS_SCRIPT_PATH);
    expect(res.text).toContain("/openapi.json");
    expect(res.text).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)\./);
  });

  it("hands the viewer's files to the docs Worker, and answers one it does not have with the envelope", async () => {
    const script = await call(DOCS_SCRIPT_PATH);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
    expect(script.text.length).toBeGreaterThan(100_000);
    await expectError(await call("/docs/vendor/missing.js"), 404, "not_found");
  });

  it("configures the reference page to show only this service (no hosted-service controls)", async () => {
    const res = await call("/docs");
    const match = /createApiReference\('#app', (\{[\s\S]*?\})\)\s*<\/script>/.exec(res.text);
    expect(match, res.text).not.toBeNull();
    const config = JSON.parse((match as RegExpExecArray)[1] as string);
    expect(config).toMatchObject({
      url: "/openapi.json",
      hideClientButton: true,
      showDeveloperTools: "never",
      agent: { disabled: true },
      mcp: { disabled: true },
      telemetry: false,
    });
    // No request proxy of the renderer's: "Test Request" calls this deployment directly.
    expect(config.proxyUrl).toBeUndefined();
    expect(config.customCss).toContain('a[href^="https://www.scalar.com"]');
    expect(config.customCss).toContain("display: none");
  });
});
