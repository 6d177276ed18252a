/**
 * One suite, the same cases for every route: the sandbox and each adapter talking to a fake
 * upstream that speaks that provider's documented wire format on 127.0.0.1. Every case is checked
 * from outside, as a client sees it (the task envelope, the artifacts, the ledger), and against
 * what reached the fake (how many submissions, downloads, cancels).
 *
 * Each provider's subjects run in a file of their own (test/providers/conformance/<provider>.test.ts,
 * one line: `conformanceSuite(subjects)`), so that the providers run side by side across the test
 * pool instead of one after another in one file; conformance/coverage.test.ts holds that every
 * provider with a fake, and every subjects module, has its file.
 */
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, newTenant, type TestTenant } from "../helpers/api";
import { useCrashDrills } from "../helpers/crash-drills";
import { pngInput } from "../helpers/media-fixtures";
import { ledger } from "../helpers/tasks";
import type { Recorded } from "./fakes/kit";
import { count, create, expectRefunded, fakeRequests, follow, newTag } from "./harness";
import { CASES, type Case, type Subject } from "./subject";

/** The scenario each case asks of the fake (kit.ts SCENARIOS). */
const SCENARIO: Record<Case, string | null> = {
  success: null,
  progress: null,
  submit_429: "submit_429",
  submit_5xx: "submit_5xx",
  safety_input: "safety_input",
  safety_output: "safety_output",
  expiring_output: "expiring_output",
  cancel: "slow",
  crash_after_submit: null,
  unknown_status: "unknown_status",
  malformed: "malformed",
  signed_inputs: null,
};

let inputs: { png: Record<string, unknown>; mp4: Record<string, unknown> };

async function createOn(t: TestTenant, s: Subject, tag: string, markers: string[], metadata: Record<string, string> = {}) {
  const task = await create(t, s, tag, markers, metadata, inputs);
  expect(task.provider.name).toBe(s.provider);
  return task;
}

/** Every stored output is served by the service itself, as the subject promises. */
async function expectOutputs(t: TestTenant, subject: Subject, task: any) {
  const artifacts = task.output.artifacts as any[];
  expect(artifacts).toHaveLength(subject.output.count);
  if (subject.output.kind === "text") expect(task.output.text.length).toBeGreaterThan(0);
  for (const a of artifacts) {
    const res = await exports.default.fetch(
      new Request(`${BASE}/v1/artifacts/${a.artifact_id}`, { headers: { Authorization: `Bearer ${t.api_key}` } }),
    );
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.length).toBe(a.bytes);
    if (subject.output.kind !== "text") expect(a.content_type.startsWith(`${subject.output.kind}/`), a.content_type).toBe(true);
    if (subject.output.width)
      expect({ width: a.width, height: a.height }).toEqual({ width: subject.output.width, height: subject.output.height });
  }
}

/** A tenant with a key of the subject's mode (the sandbox is reached with a test-mode key). */
function tenantFor(s: Subject, credits?: string) {
  return newTenant({ ...(credits ? { credits } : {}), ...(s.keyMode ? { mode: s.keyMode } : {}) });
}

function metadataFor(subject: Subject, c: Case | "slow"): Record<string, string> {
  const scenario = c === "slow" ? "slow" : SCENARIO[c];
  return (scenario && subject.scenarioMetadata?.(scenario)) || {};
}

const RUNS: Record<Case, (s: Subject) => Promise<void>> = {
  async success(s) {
    const t = await tenantFor(s, "1000");
    const tag = newTag(s.name);
    const created = await createOn(t, s, tag, []);
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    await expectOutputs(t, s, task);
    expect(task.provider).toMatchObject({ name: s.provider, failed_attempts: [] });
    expect(task.output.provider.name).toBe(s.provider);
    // Priced from what was produced, and charged exactly that (nothing for a test-mode key).
    expect(task.usage.lines.length).toBeGreaterThan(0);
    if (s.keyMode === "test") expect(task.usage.credits).toBe("0");
    else expect(Number(task.usage.credits)).toBeGreaterThan(0);
    expect(task.billing.net_charged_credits).toBe(task.usage.credits);
    if (s.output.kind === "image") expect(task.usage.image_count).toBe(s.output.count);
    const l = (await ledger(t.tenant_id)) as any;
    expect(l.totals.reserved).toBe("0");
    expect(l.totals.captured).toBe(task.usage.credits);
    if (s.provider !== "sandbox") {
      const records = await fakeRequests(s.provider, tag);
      expect(count(records, "submit")).toBe(1);
    }
  },

  async progress(s) {
    const t = await tenantFor(s);
    const created = await createOn(t, s, newTag(s.name), []);
    expect(created.status).toBe("queued");
    const { task, seen } = await follow(t, created.task_id);
    expect(task.status).toBe("succeeded");
    const statuses = seen.map((x) => x.status);
    expect(statuses).toContain("running");
    expect(statuses.indexOf("running")).toBeGreaterThan(-1);
    const percents = seen.map((x) => x.progress.percent);
    // Progress never goes back, and it moves before the end.
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(new Set(percents.filter((p) => p > 0 && p < 100)).size).toBeGreaterThan(0);
  },

  async submit_429(s) {
    const t = await tenantFor(s);
    const tag = newTag(s.name);
    const created = await createOn(t, s, tag, ["#fake:submit_429"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    const submits = (await fakeRequests(s.provider, tag)).filter((r) => r.kind === "submit");
    expect(submits).toHaveLength(2);
    // Retry-After: 1 was honoured before the second attempt.
    expect((submits[1] as Recorded).at - (submits[0] as Recorded).at).toBeGreaterThanOrEqual(900);
    expect(task.provider.failed_attempts).toHaveLength(1);
    expect(task.provider.failed_attempts[0]).toMatchObject({ provider: s.provider, code: "model_rate_limited" });
  },

  async submit_5xx(s) {
    const t = await tenantFor(s);
    const tag = newTag(s.name);
    const created = await createOn(t, s, tag, ["#fake:submit_5xx"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(count(await fakeRequests(s.provider, tag), "submit")).toBe(2);
    expect(task.provider.name).toBe(s.provider);
  },

  async safety_input(s) {
    const t = await tenantFor(s, "1000");
    const tag = newTag(s.name);
    const created = await createOn(t, s, tag, ["#fake:safety_input"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status).toBe("failed");
    expect(task.error.code).toBe("safety_rejected");
    expect(task.error.retryable).toBe(false);
    expect(task.error.message).not.toContain(`fake-${s.provider}-key`);
    await expectRefunded(t, task, "1000");
    // A refusal is not retried: one submission, and no other route was tried.
    expect(count(await fakeRequests(s.provider, tag), "submit")).toBe(1);
  },

  async safety_output(s) {
    const t = await tenantFor(s, "1000");
    const created = await createOn(t, s, newTag(s.name), ["#fake:safety_output"], metadataFor(s, "safety_output"));
    const { task } = await follow(t, created.task_id);
    expect(task.status).toBe("failed");
    expect(task.error.code).toBe("content_filtered");
    await expectRefunded(t, task, "1000");
  },

  async expiring_output(s) {
    const t = await tenantFor(s);
    const tag = newTag(s.name);
    const created = await createOn(t, s, tag, ["#fake:expiring_output"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    // Copied once into the service's storage, and served from there after the upstream URL is gone.
    expect(count(await fakeRequests(s.provider, tag), "download")).toBe(s.output.count);
    await expectOutputs(t, s, task);
  },

  async cancel(s) {
    const t = await tenantFor(s, "1000");
    const tag = newTag(s.name);
    const created = await createOn(t, s, tag, ["#fake:slow"], metadataFor(s, "slow"));
    // Wait until the upstream holds the job.
    await follow(t, created.task_id, (x) => x.progress.stage !== "queued" || x.progress.percent > 0 || x.status !== "queued");
    await follow(
      t,
      created.task_id,
      (x) => ["submitted", "queued", "generating"].includes(x.progress.stage) && x.progress.percent >= 0,
    );
    const res = await call(`/v1/tasks/${created.task_id}/cancel`, { key: t.api_key, body: { reason: "test" } });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.status).toBe("canceled");
    expect(res.json.cancel_requested_at).toBeTruthy();
    await expectRefunded(t, res.json, "1000");
    if (s.provider !== "sandbox") expect(count(await fakeRequests(s.provider, tag), "cancel")).toBeGreaterThanOrEqual(1);
  },

  async crash_after_submit(s) {
    const t = await tenantFor(s);
    const tag = newTag(s.name);
    const created = await createOn(t, s, tag, [], { drill_crash_after: "submit" });
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    if (s.provider !== "sandbox") expect(count(await fakeRequests(s.provider, tag), "submit")).toBe(1);
  },

  async unknown_status(s) {
    const t = await tenantFor(s);
    const created = await createOn(t, s, newTag(s.name), ["#fake:unknown_status"]);
    const { task, seen } = await follow(t, created.task_id);
    // An unlisted status is "still running", never success or failure.
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(seen.filter((x) => x.status === "failed")).toEqual([]);
  },

  async malformed(s) {
    const t = await tenantFor(s, "1000");
    const created = await createOn(t, s, newTag(s.name), ["#fake:malformed"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status).toBe("failed");
    expect(["model_output_invalid", "model_request_failed"]).toContain(task.error.code);
    expect(task.output).toBeNull();
    await expectRefunded(t, task, "1000");
  },

  async signed_inputs(s) {
    const t = await tenantFor(s);
    const tag = newTag(s.name);
    const created = await createOn(t, s, tag, []);
    await follow(t, created.task_id);
    const submit = (await fakeRequests(s.provider, tag)).find((r) => r.kind === "submit");
    const urls = JSON.stringify(submit?.body ?? {}).match(/https?:\/\/[^"\\]+\/inputs\/[^"\\]+/g) ?? [];
    expect(urls.length, "the upstream received a signed input URL").toBeGreaterThan(0);
    for (const u of urls) {
      const url = new URL(u);
      expect(url.origin).toBe(env.PUBLIC_BASE_URL);
      const res = await exports.default.fetch(new Request(`${BASE}${url.pathname}${url.search}`));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
      const forged = url.search.replace(/sig=[0-9a-f]/, (m) => (m.endsWith("0") ? "sig=1" : "sig=0"));
      expect((await exports.default.fetch(new Request(`${BASE}${url.pathname}${forged}`))).status).toBe(403);
      const later = url.search.replace(/expires=\d+/, "expires=1");
      expect((await exports.default.fetch(new Request(`${BASE}${url.pathname}${later}`))).status).toBe(403);
    }
  },
};

/** Registers every case for each of `subjects` (one provider's), in the test file that calls it. */
export function conformanceSuite(subjects: Subject[]): void {
  useCrashDrills();
  beforeAll(async () => {
    inputs = { png: await pngInput(512, 512), mp4: { type: "url", url: "https://example.invalid/none.mp4" } };
  });
  // Cases are independent (a tenant and a tag each) and mostly wait on backoffs: run them side by side.
  for (const subject of subjects) {
    describe.concurrent(subject.name, () => {
      // A case that does not apply to this subject (a synchronous API has no cancel) is not
      // registered at all: the subject names why, and only cases that exist may be named.
      it("names only known cases as not applicable, each with its reason", () => {
        for (const [c, reason] of Object.entries(subject.skip ?? {})) {
          expect(CASES as readonly string[]).toContain(c);
          expect(String(reason).length).toBeGreaterThan(0);
        }
      });
      for (const c of CASES) if (!subject.skip?.[c]) it(c, () => RUNS[c](subject), 40_000);
    });
  }
}
