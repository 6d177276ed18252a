/**
 * The new-task page: a form made from the operation's request schema, files uploaded as
 * artifacts, the task admitted as the API admits it (test mode unless live is chosen), the browser
 * sent on to the task's page; one task per form however often it is sent; refusals shown on the
 * form with the API's words; viewers may not create tasks.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { accountFor } from "../../src/accounts/account-stub";
import { tenantScope } from "../../src/keys/scope";
import { readTaskEnvelope } from "../../src/tasks/task-stub";
import { BASE } from "../helpers/api";
import { type Browser, freshEmail, inviteAndSignIn, signIn, tenantWithOwner } from "../helpers/console";
import { png } from "../helpers/media-fixtures";
import { runAlarm } from "../helpers/tasks";

let tenant: { tenant_id: string };
let developer: Browser;
let viewer: Browser;

beforeAll(async () => {
  const ownerEmail = freshEmail("owner");
  tenant = await tenantWithOwner(ownerEmail, "1000");
  const owner = await signIn(ownerEmail);
  developer = await inviteAndSignIn(owner, freshEmail("dev"), "developer");
  viewer = await inviteAndSignIn(owner, freshEmail("viewer"), "viewer");
});

const keyOf = (html: string) => /name="idempotency_key" value="(console-[0-9a-f-]{36})"/.exec(html)?.[1] as string;

/** Opens the form of `capability` and posts it (multipart, as the browser does) with `fields` and `files`. */
async function submit(
  who: Browser,
  capability: string,
  fields: Record<string, string>,
  files: Record<string, { bytes: Uint8Array; name: string; type: string }[]> = {},
  key?: string,
) {
  const page = await who.get(`/console/tasks/new?capability=${capability}`);
  const form = new FormData();
  form.set("_csrf", who.csrf ?? "");
  form.set("capability", capability);
  form.set("idempotency_key", key ?? keyOf(page.text));
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  for (const [k, list] of Object.entries(files)) {
    for (const f of list) form.append(k, new File([f.bytes], f.name, { type: f.type }));
  }
  const res = await who.request("/console/tasks/new", { method: "POST", body: form, headers: { Origin: BASE } });
  return { form: page, res, key: key ?? keyOf(page.text) };
}

const taskIdOf = (location: string | null) => /^\/console\/tasks\/(task_[0-9a-f]{64})$/.exec(location ?? "")?.[1];

describe("the new-task page", () => {
  it("offers every capability, then the operation's fields: model from the catalog, files, test mode first", async () => {
    const chooser = await developer.get("/console/tasks/new");
    expect(chooser.status).toBe(200);
    expect(chooser.text).toContain('href="/console/tasks/new?capability=text_to_image"');
    expect(chooser.text).toContain('href="/console/tasks/new?capability=text_to_speech"');

    const form = await developer.get("/console/tasks/new?capability=image_to_image");
    expect(form.status).toBe(200);
    expect(form.text).toContain('enctype="multipart/form-data"');
    expect(form.text).toMatch(/<textarea id="field-prompt" name="prompt"[^>]*required/);
    expect(form.text).toMatch(/<input id="field-images" name="images" type="file"[^>]*multiple/);
    expect(form.text).toMatch(/<select id="field-model" name="model"[^>]*><option value="auto" selected/);
    expect(form.text).toContain('<option value="gpt-image-2"');
    expect(form.text).toMatch(/<input id="field-count" name="count" type="number" min="1" max="4"/);
    expect(form.text).toMatch(
      /<select id="field-output_format" name="output_format"[^>]*><option value="">default<\/option><option value="png">/,
    );
    expect(form.text).toMatch(/id="mode-test" type="radio" name="mode" value="test" checked/);
    expect(keyOf(form.text)).toBeTruthy();
    // Each rendering is its own form, with its own key.
    expect(keyOf((await developer.get("/console/tasks/new?capability=image_to_image")).text)).not.toBe(keyOf(form.text));
  });

  it("creates a text_to_image task in test mode, sends the browser to it, and charges nothing", async () => {
    const before = await accountFor(env, tenant.tenant_id).balanceView();
    const { res } = await submit(developer, "text_to_image", {
      prompt: "a lighthouse at dawn",
      count: "1",
      canvas: '{"type":"preset","tier":"1K","aspect":"1:1"}',
      mode: "test",
    });
    expect(res.status, res.text).toBe(303);
    const taskId = taskIdOf(res.location) as string;
    expect(taskId).toBeTruthy();
    const task = await readTaskEnvelope(env, taskId, tenantScope(tenant.tenant_id));
    expect(task).toMatchObject({
      capability: "text_to_image",
      model: "auto",
      input: { prompt: "a lighthouse at dawn", count: 1 },
    });
    expect(task?.warnings.map((w) => w.code)).toContain("simulated_output");
    expect(task?.warnings.find((w) => w.code === "simulated_output")?.message).toContain("Test-mode");
    const page = await developer.get(res.location as string);
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="task-live"');
    expect((await accountFor(env, tenant.tenant_id).balanceView())?.available).toBe(before?.available);
  });

  it("runs live only when live is chosen: then the tenant's credits are held for it", async () => {
    const before = await accountFor(env, tenant.tenant_id).balanceView();
    const { res } = await submit(developer, "text_to_image", { prompt: "a live lighthouse", mode: "live" });
    expect(res.status, res.text).toBe(303);
    const task = await readTaskEnvelope(env, taskIdOf(res.location) as string, tenantScope(tenant.tenant_id));
    expect(task?.warnings.find((w) => w.code === "simulated_output")?.message ?? "").not.toContain("Test-mode");
    const after = await accountFor(env, tenant.tenant_id).balanceView();
    // Held or already charged: either way no longer available.
    expect(Number(after?.available)).toBeLessThan(Number(before?.available));
    const bad = await submit(developer, "text_to_image", { prompt: "x", mode: "production" });
    expect(bad.res.status).toBe(422);
    expect(bad.res.text).toContain("mode: must be test or live");
  });

  it("uploads the chosen files as artifacts and makes an image_to_image task from them", async () => {
    const { res } = await submit(
      developer,
      "image_to_image",
      { prompt: "the same scene at night" },
      { images: [{ bytes: await png(64, 48), name: "scene.png", type: "image/png" }] },
    );
    expect(res.status, res.text).toBe(303);
    const task = await readTaskEnvelope(env, taskIdOf(res.location) as string, tenantScope(tenant.tenant_id));
    expect(task?.capability).toBe("image_to_image");
    const images = (task?.input as { images?: { type: string; artifact_id: string }[] } | undefined)?.images ?? [];
    expect(images).toHaveLength(1);
    expect(images[0]).toMatchObject({ type: "artifact", artifact_id: expect.stringMatching(/^art_[0-9a-f]{32}$/) });
    const stored = await env.ARTIFACTS.head(`artifacts/${images[0]?.artifact_id}`);
    expect(stored?.customMetadata).toMatchObject({ tenant_id: tenant.tenant_id, source: "upload" });
  });

  it("makes one task per form: the same form sent again leads to the task it made", async () => {
    const first = await submit(developer, "text_to_image", { prompt: "one fox" });
    expect(first.res.status).toBe(303);
    const again = await submit(developer, "text_to_image", { prompt: "one fox" }, {}, first.key);
    expect(again.res.location).toBe(first.res.location);
    // Even with a file (a new upload each time), the form already used goes to its task.
    const withFile = { images: [{ bytes: await png(32, 32), name: "a.png", type: "image/png" }] };
    const a = await submit(developer, "image_to_image", { prompt: "twice" }, withFile);
    const b = await submit(developer, "image_to_image", { prompt: "twice" }, withFile, a.key);
    expect(b.res.status).toBe(303);
    expect(b.res.location).toBe(a.res.location);
  });

  it("offers fallback models and provider preferences, each input labelled, other providers allowed by default", async () => {
    const form = (await developer.get("/console/tasks/new?capability=text_to_image")).text;
    for (const [id, name] of <[string, string][]>[
      ["field-models", "models"],
      ["field-provider-order", "provider.order"],
      ["field-provider-only", "provider.only"],
      ["field-provider-ignore", "provider.ignore"],
    ]) {
      expect(form).toContain(`<label for="${id}">`);
      expect(form).toMatch(new RegExp(`<input id="${id}" name="${name.replace(".", "\\.")}" type="text"`));
    }
    expect(form).toContain('<label for="field-models">Fallback models');
    expect(form).toMatch(
      /<select id="field-provider-sort" name="provider.sort"[^>]*><option value="">none[^<]*<\/option><option value="price">price<\/option><option value="latency">latency<\/option>/,
    );
    expect(form).toMatch(
      /<label class="inline-check" for="field-provider-allow_fallbacks"><input id="field-provider-allow_fallbacks" type="checkbox" name="provider.allow_fallbacks" value="true" checked/,
    );
    expect(form).toContain("Allow other providers");
    // Not also as raw JSON under "More options".
    expect(form).not.toContain('<textarea id="field-models"');
    expect(form).not.toContain('<textarea id="field-provider"');
  });

  it("a form with fallback models and a provider order makes a task on that list; the task page shows who was passed over", async () => {
    const { res } = await submit(developer, "text_to_image", {
      prompt: "a harbour at dusk",
      // As a browser posts it: the model select left on auto, the checkbox on the form and checked.
      model: "auto",
      models: "flux-2-pro, gpt-image-2",
      "provider.order": "sandbox",
      "provider.ignore": "",
      "provider.sort": "price",
      "provider.allow_fallbacks_shown": "1",
      "provider.allow_fallbacks": "true",
      metadata: '{"sandbox_fault":"provider_error","sandbox_fault_model":"flux-2-pro"}',
    });
    expect(res.status, res.text).toBe(303);
    const taskId = taskIdOf(res.location) as string;
    const scope = tenantScope(tenant.tenant_id);
    const task = await readTaskEnvelope(env, taskId, scope);
    // The envelope shows the list, and the route the preferences led to.
    expect(task).toMatchObject({ model: "flux-2-pro", models: ["flux-2-pro", "gpt-image-2"], provider: { name: "sandbox" } });
    let done = task;
    for (let i = 0; i < 100 && !["succeeded", "failed", "canceled"].includes(done?.status ?? ""); i++) {
      await runAlarm(taskId).catch(() => undefined);
      done = await readTaskEnvelope(env, taskId, scope);
    }
    expect(done?.status, JSON.stringify(done?.error)).toBe("succeeded");
    expect(done?.resolved_model).toBe("gpt-image-2");
    const page = (await developer.get(res.location as string)).text;
    expect(page).toMatch(
      /<dt>Fallback models<\/dt><dd data-field="models"><code>flux-2-pro<\/code>, <code>gpt-image-2<\/code><\/dd>/,
    );
    expect(page).toMatch(
      /<dt>Passed over<\/dt><dd data-field="model-fallbacks"><ul class="model-fallbacks"><li><code>flux-2-pro<\/code> — upstream_failed/,
    );
  });

  it("the preferences reach admission: other providers allowed or not by the checkbox, ignored providers never used", async () => {
    // Locally every model's one route is the sandbox's: an order naming only another provider
    // leaves it no route unless other providers are allowed.
    const form = { prompt: "ordered", model: "flux-2-pro", "provider.order": "openai", "provider.allow_fallbacks_shown": "1" };
    const allowed = await submit(developer, "text_to_image", { ...form, "provider.allow_fallbacks": "true" });
    expect(allowed.res.status, allowed.res.text).toBe(303);
    const task = await readTaskEnvelope(env, taskIdOf(allowed.res.location) as string, tenantScope(tenant.tenant_id));
    expect(task?.provider?.name).toBe("sandbox");
    expect(task).not.toHaveProperty("models");
    const unchecked = await submit(developer, "text_to_image", form);
    expect(unchecked.res.status).toBe(422);
    expect(unchecked.res.text).toContain("provider preferences leave flux-2-pro no route");
    const ignored = await submit(developer, "text_to_image", {
      prompt: "ignored",
      models: "flux-2-pro,gpt-image-2",
      "provider.ignore": "sandbox",
    });
    expect(ignored.res.status).toBe(422);
    expect(ignored.res.text).toContain("None of the listed models can honour this text_to_image request as sent.");

    const unknown = await submit(developer, "text_to_image", {
      prompt: "x",
      model: "auto",
      "provider.order": "sandbox, nope",
      "provider.allow_fallbacks_shown": "1",
    });
    expect(unknown.res.status).toBe(422);
    expect(unknown.res.text).toContain("/provider/order/1");
    // Shown again as typed, the checkbox as it was (unchecked), the section open.
    expect(unknown.res.text).toMatch(/<input id="field-provider-order" name="provider.order" type="text" value="sandbox, nope"/);
    expect(unknown.res.text).not.toMatch(/name="provider.allow_fallbacks" value="true" checked/);
    expect(unknown.res.text).toMatch(/<details open=""><summary>Models and providers/);
    // A model chosen and a fallback list too: the API's refusal.
    const both = await submit(developer, "text_to_image", { prompt: "x", model: "flux-2-pro", models: "gpt-image-2" });
    expect(both.res.status).toBe(422);
    expect(both.res.text).toContain("Send either `model` or `models`, not both.");
  });

  it("shows a refusal on the form with the API's words, and keeps what was typed", async () => {
    const missing = await submit(developer, "text_to_image", { prompt: "" });
    expect(missing.res.status).toBe(422);
    expect(missing.res.text).toContain("Request body is invalid at /prompt");
    const big = await submit(developer, "text_to_image", { prompt: "kept prompt", count: "9" });
    expect(big.res.status).toBe(422);
    expect(big.res.text).toContain("/count");
    expect(big.res.text).toContain("kept prompt");
    const json = await submit(developer, "text_to_image", { prompt: "x", canvas: "{not json" });
    expect(json.res.status).toBe(422);
    expect(json.res.text).toContain("canvas: is not valid JSON");
    const noFile = await submit(developer, "image_to_image", { prompt: "no file" });
    expect(noFile.res.status).toBe(422);
    expect(noFile.res.text).toContain("/images");
    const notImage = await submit(
      developer,
      "image_to_image",
      { prompt: "text file" },
      { images: [{ bytes: new TextEncoder().encode("hello"), name: "a.txt", type: "text/plain" }] },
    );
    expect([415, 422]).toContain(notImage.res.status);
    const badKey = await submit(developer, "text_to_image", { prompt: "x" }, {}, "reused-by-hand");
    expect(badKey.res.status).toBe(422);
    expect(badKey.res.text).toContain("idempotency_key");
  });

  it("is refused to a viewer (403), page and form alike", async () => {
    expect((await viewer.get("/console/tasks/new")).status).toBe(403);
    const form = new FormData();
    form.set("_csrf", viewer.csrf ?? "");
    form.set("capability", "text_to_image");
    form.set("prompt", "no");
    const res = await viewer.request("/console/tasks/new", { method: "POST", body: form, headers: { Origin: BASE } });
    expect(res.status).toBe(403);
  });
});
