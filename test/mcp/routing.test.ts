/**
 * The media tools' `models` fallback list and `provider` preferences through the official client:
 * both are arguments of every media tool (the operation's own schema), a task moves down the list
 * as the REST route's does, and the result's text says which model served and which were passed
 * over; the same refusals at the same params; get_quote prices the list.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { newTenant, type TestTenant } from "../helpers/api";
import { expectLedgerBalanced, getTask } from "../helpers/tasks";
import { callError, callOk, connect, waitUntilDone } from "./helpers";

const IMAGE = { prompt: "a harbour at dusk", canvas: { type: "preset", tier: "1K", aspect: "1:1" } };

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "5000" });
});

describe("models and provider on the media tools", () => {
  it("every media tool takes both, described, in its input schema", async () => {
    const client = await connect(t.api_key);
    const { tools } = await client.listTools();
    const media = tools.filter((tool) => ["text_to_image", "text_to_video", "text_to_speech"].includes(tool.name));
    expect(media).toHaveLength(3);
    for (const tool of media) {
      const props = tool.inputSchema.properties as Record<string, any>;
      expect(props.models, tool.name).toMatchObject({ type: "array", maxItems: 5 });
      expect(props.models.description).toContain("resolved_model");
      // The preferences are a named schema of the tool's own $defs.
      const ref = (props.provider.$ref as string | undefined)?.replace("#/$defs/", "");
      const defs = (tool.inputSchema as { $defs?: Record<string, unknown> }).$defs ?? {};
      const provider = JSON.stringify(ref ? defs[ref] : props.provider);
      for (const word of ["order", "only", "ignore", "sort", "allow_fallbacks", "latency"]) expect(provider).toContain(word);
    }
  });

  it("a task whose first listed model fails at its upstream is served by the next; the text names both", async () => {
    const own = await newTenant({ credits: "1000" });
    const client = await connect(own.api_key);
    const created = await callOk(client, "text_to_image", {
      ...IMAGE,
      models: ["flux-2-pro", "gpt-image-2"],
      provider: { order: ["sandbox"], sort: "price", allow_fallbacks: false },
      metadata: { sandbox_fault: "provider_error", sandbox_fault_model: "flux-2-pro" },
    });
    const task = created.structuredContent;
    expect(task).toMatchObject({ models: ["flux-2-pro", "gpt-image-2"], resolved_model: "flux-2-pro", model_fallbacks: [] });
    expect(task.provider.name).toBe("sandbox");
    expect(created.content[1]).toEqual({
      type: "text",
      text: "Of the models flux-2-pro, gpt-image-2, flux-2-pro is serving; none was passed over.",
    });
    const done = await waitUntilDone(client, task.task_id);
    expect(done.structuredContent.status, JSON.stringify(done.structuredContent.error)).toBe("succeeded");
    expect(done.structuredContent.resolved_model).toBe("gpt-image-2");
    expect(done.structuredContent.model_fallbacks).toMatchObject([{ model: "flux-2-pro", reason: "upstream_failed" }]);
    expect(done.content[0].text).toContain("on gpt-image-2) succeeded");
    expect(done.content[1].type).toBe("text");
    expect(done.content[1].text).toMatch(
      /^Of the models flux-2-pro, gpt-image-2, gpt-image-2 served; passed over: flux-2-pro \(upstream_failed(: [^)]+)?\)\.$/,
    );
    // The REST door reads the same task alike.
    const rest = await getTask(own, task.task_id);
    expect(rest.json).toMatchObject({ models: ["flux-2-pro", "gpt-image-2"], resolved_model: "gpt-image-2" });
    await expectLedgerBalanced(own.tenant_id);
  });

  it("a model passed over at admission is in the first answer already", async () => {
    const client = await connect(t.api_key);
    const created = await callOk(client, "text_to_image", { ...IMAGE, models: ["no-such-model", "flux-2-pro"] });
    expect(created.structuredContent.model_fallbacks).toMatchObject([{ model: "no-such-model", reason: "unsupported_model" }]);
    expect(created.content[1].text).toMatch(
      /^Of the models no-such-model, flux-2-pro, flux-2-pro is serving; passed over: no-such-model \(unsupported_model/,
    );
    // A task made with `model` says nothing of lists.
    const single = await callOk(client, "text_to_image", { ...IMAGE, model: "flux-2-pro" });
    expect((single.content as any[]).filter((c) => c.type === "text" && c.text.startsWith("Of the models"))).toEqual([]);
  });

  it("refuses as the REST route does, at the same params", async () => {
    const client = await connect(t.api_key);
    const both = await callError(client, "text_to_image", { ...IMAGE, model: "flux-2-pro", models: ["gpt-image-2"] });
    expect(both).toMatchObject({ code: "invalid_request", param: "/models" });
    const auto = await callError(client, "text_to_image", { ...IMAGE, models: ["flux-2-pro", "auto"] });
    expect(auto).toMatchObject({ code: "invalid_request", param: "/models/1" });
    const unknown = await callError(client, "text_to_image", { ...IMAGE, provider: { order: ["sandbox", "nope"] } });
    expect(unknown).toMatchObject({ code: "invalid_request", param: "/provider/order/1" });
    const none = await callError(client, "text_to_image", { ...IMAGE, model: "flux-2-pro", provider: { ignore: ["sandbox"] } });
    expect(none).toMatchObject({ code: "no_eligible_model", param: "/provider" });
  });

  it("get_quote prices a models list with provider preferences", async () => {
    const client = await connect(t.api_key);
    const quoted = await callOk(client, "get_quote", {
      operation: "text_to_image",
      arguments: { ...IMAGE, models: ["gpt-image-2", "flux-2-pro"], provider: { only: ["sandbox"] } },
    });
    expect(quoted.structuredContent).toMatchObject({ object: "quote", resolved_model: "gpt-image-2" });
  });
});
