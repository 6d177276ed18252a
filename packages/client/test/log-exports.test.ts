/** The request log's exports from the client: each method sends its route, body and path as documented. */
import { describe, expect, it } from "vitest";
import { json, testClient } from "./fake-fetch.js";

const exported = (id: string) => ({
  object: "log_export",
  export_id: id,
  kind: "otlp",
  url: "https://otel.example.com/v1/traces",
  header_names: ["x-api-key"],
  last_error: null,
  delivered_count: 3,
});

describe("client.logExports", () => {
  it("creates an OTLP export with its headers, lists, reads, runs and deletes it", async () => {
    const { client, seen } = testClient({
      "POST /v1/log-exports": () => json(201, exported("lex_a")),
      "GET /v1/log-exports": () => json(200, { object: "list", data: [exported("lex_a")] }),
      "GET /v1/log-exports/lex_a": () => json(200, exported("lex_a")),
      "POST /v1/log-exports/lex_a/run": () => json(200, { ...exported("lex_a"), delivered_count: 5 }),
      "DELETE /v1/log-exports/lex_a": () => json(200, { object: "log_export", export_id: "lex_a", deleted: true }),
    });
    const body = { kind: "otlp" as const, url: "https://otel.example.com/v1/traces", headers: { "x-api-key": "k" } };
    expect((await client.logExports.create(body)).export_id).toBe("lex_a");
    expect(JSON.parse(seen[0]?.body ?? "{}")).toEqual(body);
    expect((await client.logExports.list()).data).toHaveLength(1);
    expect((await client.logExports.get("lex_a")).delivered_count).toBe(3);
    expect((await client.logExports.run("lex_a")).delivered_count).toBe(5);
    await client.logExports.delete("lex_a");
    expect(seen.map((s) => `${s.method} ${s.url.pathname}`)).toEqual([
      "POST /v1/log-exports",
      "GET /v1/log-exports",
      "GET /v1/log-exports/lex_a",
      "POST /v1/log-exports/lex_a/run",
      "DELETE /v1/log-exports/lex_a",
    ]);
  });
});
