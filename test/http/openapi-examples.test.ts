/**
 * Every example in /openapi.json is valid against the schema beside it, and the server accepts
 * it: request bodies are sent as written, parameter examples are used in real calls.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { PERMISSIONS } from "../../src/keys/api-keys";
import { putArtifact } from "../../src/media/artifacts";
import { EXAMPLE_VIDEO_ARTIFACT_ID } from "../../src/operations/examples";
import { ADMIN_TOKEN, call, newTenant, type TestTenant } from "../helpers/api";
import { validateJsonSchema } from "../helpers/json-schema";
import { mp4 } from "../helpers/media-fixtures";

interface Example {
  where: string;
  schema: any;
  value: unknown;
}

interface BodyExample {
  method: string;
  path: string;
  name: string;
  value: unknown;
  operation: any;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** Every `example` / `examples` in the document, with the schema it must satisfy. */
function collect(doc: any): { examples: Example[]; bodies: BodyExample[]; unsendable: string[] } {
  const examples: Example[] = [];
  const bodies: BodyExample[] = [];
  const unsendable: string[] = [];

  const walkSchema = (schema: any, where: string) => {
    if (!schema || typeof schema !== "object") return;
    if ("example" in schema) examples.push({ where: `${where} (example)`, schema, value: schema.example });
    if (Array.isArray(schema.examples))
      for (const [i, v] of schema.examples.entries()) examples.push({ where: `${where} (examples/${i})`, schema, value: v });
    for (const [k, s] of Object.entries(schema.properties ?? {})) walkSchema(s, `${where}/properties/${k}`);
    for (const key of ["items", "additionalProperties", "propertyNames", "not"]) walkSchema(schema[key], `${where}/${key}`);
    for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"])
      for (const [i, s] of (schema[key] ?? []).entries()) walkSchema(s, `${where}/${key}/${i}`);
  };
  const walkMedia = (content: Record<string, any> | undefined, where: string, onExample?: (name: string, v: unknown) => void) => {
    for (const [type, media] of Object.entries(content ?? {})) {
      walkSchema(media.schema, `${where}/${type}/schema`);
      if ("example" in media) {
        examples.push({ where: `${where}/${type} (example)`, schema: media.schema, value: media.example });
        onExample?.("example", media.example);
      }
      for (const [name, ex] of Object.entries<any>(media.examples ?? {})) {
        examples.push({ where: `${where}/${type} (examples/${name})`, schema: media.schema, value: ex.value });
        if (type === "application/json") onExample?.(name, ex.value);
        else unsendable.push(`${where}/${type} (examples/${name})`);
      }
    }
  };
  const walkParameter = (p: any, where: string) => {
    walkSchema(p.schema, `${where}/schema`);
    if ("example" in p) examples.push({ where: `${where} (example)`, schema: p.schema, value: p.example });
    for (const [name, ex] of Object.entries<any>(p.examples ?? {}))
      examples.push({ where: `${where} (examples/${name})`, schema: p.schema, value: ex.value });
  };

  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) walkSchema(schema, `#/components/schemas/${name}`);
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const at = `${method.toUpperCase()} ${path}`;
      for (const p of op.parameters ?? []) walkParameter(p, `${at} parameter ${p.in}:${p.name}`);
      walkMedia(op.requestBody?.content, `${at} requestBody`, (name, value) => {
        if (path.includes("{")) unsendable.push(`${at} requestBody (${name})`);
        else bodies.push({ method, path, name, value, operation: op });
      });
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        walkMedia(response.content, `${at} ${status}`);
        for (const [h, header] of Object.entries<any>(response.headers ?? {}))
          walkParameter(header, `${at} ${status} header ${h}`);
      }
    }
  }
  return { examples, bodies, unsendable };
}

let doc: any;
let found: ReturnType<typeof collect>;
let tenant: TestTenant;

beforeAll(async () => {
  doc = (await call("/openapi.json")).json;
  found = collect(doc);
  tenant = await newTenant({ credits: "100000", permissions: [...PERMISSIONS] });
  // The video examples name an artifact of the caller's: this tenant has one under that id.
  await putArtifact(env.ARTIFACTS, EXAMPLE_VIDEO_ARTIFACT_ID, mp4(5, 1280, 720), {
    tenant_id: tenant.tenant_id,
    task_id: "fixture",
    content_type: "video/mp4",
  });
});

describe("OpenAPI examples", () => {
  it("every example is valid against its schema", () => {
    // The walk finds them (a broken walk would pass vacuously).
    expect(found.examples.length).toBeGreaterThan(60);
    const invalid = found.examples
      .map((e) => ({ where: e.where, errors: validateJsonSchema(doc, e.schema, e.value) }))
      .filter((e) => e.errors.length > 0);
    expect(invalid).toEqual([]);
  });

  it("the checker refuses what the schemas refuse (so the check above can fail)", () => {
    const ref = { $ref: "#/components/schemas/ImageGenerationRequest" };
    expect(validateJsonSchema(doc, ref, { prompt: "x" })).toEqual([]);
    expect(validateJsonSchema(doc, ref, { prompt: "x", n: 2 }).join()).toContain("/n");
    expect(validateJsonSchema(doc, ref, { prompt: "x", count: 9 }).join()).toContain("/count: above 4");
    expect(validateJsonSchema(doc, ref, { count: 1 }).join()).toContain("missing required 'prompt'");
    expect(validateJsonSchema(doc, ref, { prompt: "x", canvas: { type: "preset", tier: "2K" } }).join()).toContain("oneOf");
  });

  it("every task-creating operation documents at least one whole request body", () => {
    // A replay (`/v1/requests/{request_id}/replay`) runs a logged create again: its body is optional, not a create's.
    const creates = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      item.post?.responses?.["202"] && path.startsWith("/v1/") && !path.includes("{") ? [path] : [],
    );
    expect(creates.length).toBeGreaterThanOrEqual(13);
    for (const path of creates)
      expect(
        found.bodies.some((b) => b.path === path),
        path,
      ).toBe(true);
    // Every body example can be sent by the next test.
    expect(found.unsendable).toEqual([]);
  });

  it("every request-body example is accepted by the server as written", async () => {
    expect(found.bodies.length).toBeGreaterThanOrEqual(16);
    for (const b of found.bodies) {
      const admin = (b.operation.security ?? []).some((s: Record<string, unknown>) => "adminToken" in s);
      const headers: Record<string, string> = {};
      if ((b.operation.parameters ?? []).some((p: any) => p.in === "header" && p.name.toLowerCase() === "idempotency-key"))
        headers["Idempotency-Key"] = `example-${b.path}-${b.name}-${crypto.randomUUID()}`;
      const res = await call(b.path, {
        method: b.method.toUpperCase(),
        body: b.value,
        headers,
        key: admin ? ADMIN_TOKEN : tenant.api_key,
      });
      const success = Object.keys(b.operation.responses)
        .filter((s) => /^2\d\d$/.test(s))
        .sort()[0];
      expect(res.status, `${b.method.toUpperCase()} ${b.path} example '${b.name}': ${res.text.slice(0, 600)}`).toBe(
        Number(success),
      );
    }
  });

  it("path and query parameter examples of reads are accepted (found, or not found, never malformed)", async () => {
    let calls = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const op = item.get;
      if (!op) continue;
      const params: any[] = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === "path");
      if (pathParams.some((p) => !("example" in (p.schema ?? {})) && !("example" in p))) continue;
      let url = path;
      for (const p of pathParams) url = url.replace(`{${p.name}}`, encodeURIComponent(String(p.example ?? p.schema.example)));
      const admin = (op.security ?? []).some((s: Record<string, unknown>) => "adminToken" in s);
      const queries = params.filter((p) => p.in === "query" && ("example" in p || "example" in (p.schema ?? {})));
      const variants = [
        url,
        ...queries.map((q) => `${url}?${q.name}=${encodeURIComponent(String(q.example ?? q.schema.example))}`),
      ];
      if (pathParams.length === 0 && queries.length === 0) continue;
      for (const target of variants) {
        const res = await call(target, { key: admin ? ADMIN_TOKEN : tenant.api_key });
        calls++;
        const ok = res.status === 200 || (res.status === 404 && /not_found$/.test(res.json?.error?.code ?? ""));
        expect(ok, `GET ${target}: ${res.status} ${res.text.slice(0, 300)}`).toBe(true);
      }
    }
    expect(calls).toBeGreaterThanOrEqual(8);
  });

  it("the catalog's own examples name things that exist", async () => {
    const model = doc.paths["/v1/catalog/models/{model}"].get.parameters[0];
    expect((await call(`/v1/catalog/models/${model.schema.example}`, { key: tenant.api_key })).status).toBe(200);
    const voice = doc.paths["/v1/voices/{voice_id}"].get.parameters[0];
    expect((await call(`/v1/voices/${voice.schema.example}`, { key: tenant.api_key })).status).toBe(200);
  });
});
