import { describe, expect, it } from "vitest";
import { DOCS_SCRIPT_PATH } from "../../src/http/docs";
import { call } from "../helpers/api";

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
        post.parameters.some((p: any) => p.in === "header" && p.name === "idempotency-key"),
        path,
      ).toBe(true);
      expect(post["x-lifecycle"], path).toBe("preview");
    }
    for (const name of ["MediaInput", "VideoReference", "EditRegion", "Canvas", "PaletteEntry", "TaskEnvelope", "Usage"]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });

  it("serves an API reference page that loads its viewer from this deployment", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain(DOCS_SCRIPT_PATH);
    expect(res.text).toContain("/openapi.json");
    expect(res.text).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)\./);
  });
});
