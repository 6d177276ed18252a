/**
 * The caller's route preferences on real adapters against the fakes: flux-2-pro has routes on
 * BFL, fal and Replicate (card order). `order`, `only`, `ignore` and `allow_fallbacks` choose and
 * order them; a tenant's own key keeps its meaning within what they leave; `sort: "price"` puts
 * the route that costs least for this request first (a tenant's own key is billed only its fee).
 */
import { describe, expect, it } from "vitest";
import { addKey, manager, storedRoutes } from "../byok/helpers";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { newKey } from "../helpers/tasks";
import { count, fakeRequests, follow, newTag } from "./harness";

const CANVAS = { type: "preset", tier: "1K", aspect: "1:1" };

async function create(t: TestTenant, tag: string, extra: Record<string, unknown>, markers: string[] = []) {
  return call("/v1/images/generations", {
    key: t.api_key,
    body: { prompt: `A lighthouse at dawn #tag:${tag} ${markers.join(" ")}`.trim(), canvas: CANVAS, ...extra },
    headers: { "Idempotency-Key": newKey() },
  });
}

describe("provider preferences on a media create", () => {
  it("order puts the named providers first, then the rest; ignore and only filter", async () => {
    const t = await newTenant({ credits: "1000" });
    const ordered = await create(t, newTag("pref-order"), { model: "flux-2-pro", provider: { order: ["replicate", "fal"] } });
    expect(ordered.status, ordered.text).toBe(202);
    expect(await storedRoutes(ordered.json.task_id)).toEqual(["replicate:platform", "fal:platform", "bfl:platform"]);
    const ignored = await create(t, newTag("pref-ignore"), { model: "flux-2-pro", provider: { ignore: ["bfl"] } });
    expect(await storedRoutes(ignored.json.task_id)).toEqual(["fal:platform", "replicate:platform"]);
    const only = await create(t, newTag("pref-only"), { model: "flux-2-pro", provider: { only: ["replicate"] } });
    expect(await storedRoutes(only.json.task_id)).toEqual(["replicate:platform"]);
    const { task } = await follow(t, only.json.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.provider.name).toBe("replicate");
  });

  it("allow_fallbacks false: the ordered provider failing ends the task; nothing reaches the others", async () => {
    const t = await newTenant({ credits: "1000" });
    const tag = newTag("pref-nofallback");
    const res = await create(t, tag, { model: "flux-2-pro", provider: { order: ["fal"], allow_fallbacks: false } }, [
      "#fake:down@fal",
    ]);
    expect(res.status, res.text).toBe(202);
    expect(await storedRoutes(res.json.task_id)).toEqual(["fal:platform"]);
    const { task } = await follow(t, res.json.task_id);
    expect(task.status).toBe("failed");
    expect(task.billing.net_charged_credits).toBe("0");
    expect(count(await fakeRequests("fal", tag), "submit")).toBeGreaterThan(0);
    expect(await fakeRequests("bfl", tag)).toEqual([]);
    expect(await fakeRequests("replicate", tag)).toEqual([]);
    // With fallbacks allowed (the default), the same failure moves on to the next route.
    const tag2 = newTag("pref-fallback");
    const moved = await create(t, tag2, { model: "flux-2-pro", provider: { order: ["fal"] } }, ["#fake:down@fal"]);
    const done = await follow(t, moved.json.task_id);
    expect(done.task.status).toBe("succeeded");
    expect(done.task.provider.name).toBe("bfl");
  });

  it("a tenant's own key keeps its meaning within the preferences, and sort by price puts it first (only its fee is billed)", async () => {
    const t = await manager();
    await addKey(t, "fal", { mode: "fallback" });
    const plain = await create(t, newTag("pref-byok"), { model: "flux-2-pro", provider: { ignore: ["replicate"] } });
    expect(await storedRoutes(plain.json.task_id)).toEqual(["bfl:platform", "fal:platform", "fal:tenant"]);
    const cheapest = await create(t, newTag("pref-price"), { model: "flux-2-pro", provider: { sort: "price" } });
    expect(cheapest.status, cheapest.text).toBe(202);
    expect((await storedRoutes(cheapest.json.task_id))[0]).toBe("fal:tenant");
  });

  it("models and provider together: a model the preferences leave no route is passed over for the next", async () => {
    const t = await newTenant({ credits: "1000" });
    const res = await create(t, newTag("pref-models"), {
      models: ["flux-2-pro", "gpt-image-2"],
      provider: { only: ["openai"] },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json.resolved_model).toBe("gpt-image-2");
    expect(res.json.provider.name).toBe("openai");
    expect(res.json.model_fallbacks).toMatchObject([{ model: "flux-2-pro", reason: "excluded_by_provider_preferences" }]);
  });
});
