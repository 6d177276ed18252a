/**
 * The built-in sandbox provider: an honest simulator that needs no upstream account. It is
 * stateless — progress follows the time since submission along a per-capability latency
 * profile — and deterministic for a given request and seed. Its outputs are made by the sandbox
 * Worker (src/sandbox-worker), bound as SANDBOX, so that an encode runs outside the API's isolate.
 *
 * Fault injection (only where SANDBOX_FAULT_INJECTION is "true", as in local development and
 * tests): a task whose metadata has `sandbox_fault` naming FAULTS (comma-separated) behaves accordingly.
 * Such a failure is the request's own (it asked for it) and never counts against the route's health;
 * an outage of a route for every caller (`setSandboxOutage`, tests only) is the route's.
 */

import type { Capability } from "../../catalog/schema";
import { hash32 } from "../../lib/random";
import type { ProviderAdapter, ProviderContext } from "../adapter";
import { PROVIDERS } from "../names";
import type { SandboxInput } from "../sandbox-contract";
import { sandboxService } from "../sandbox-stub";
import type { ProviderHandle, ProviderJob, ProviderResult } from "../types";
import { ProviderError } from "../types";

export const FAULTS = [
  "provider_error",
  "rate_limited",
  "content_filtered",
  "output_download",
  "uncancelable",
  "hang",
  "stay_queued",
] as const;
export type Fault = (typeof FAULTS)[number];

/** Typical time to finish, in milliseconds, before SANDBOX_LATENCY_SCALE. */
const LATENCY_MS: Partial<Record<Capability, number>> = {
  text_to_image: 4000,
  image_to_image: 4000,
  image_edit: 5000,
  image_to_text: 2000,
  video_prompt_enhance: 2000,
  text_to_video: 12000,
  image_to_video: 12000,
  reference_to_video: 15000,
  frames_to_video: 12000,
  video_extend: 10000,
  video_to_text: 4000,
  text_to_music: 10000,
  text_to_speech: 3000,
};
const DEFAULT_LATENCY_MS = 3000;

/**
 * The faults a job asks for: `metadata.sandbox_fault`, comma-separated (e.g. "uncancelable,hang");
 * with `metadata.sandbox_fault_model`, only on that model (a `models` list's first model fails, the next serves).
 */
function requested(job: ProviderJob, ctx: ProviderContext): Set<Fault> {
  if (ctx.env.SANDBOX_FAULT_INJECTION !== "true") return new Set();
  const only = job.metadata.sandbox_fault_model;
  if (only !== undefined && only !== job.model) return new Set();
  const asked = (job.metadata.sandbox_fault ?? "").split(",").map((f) => f.trim());
  return new Set(FAULTS.filter((f) => asked.includes(f)));
}

/** The asked faults that end the job failed (`uncancelable` alone lets it succeed). */
const FAILING: ReadonlySet<Fault> = new Set(FAULTS.filter((f) => f !== "uncancelable"));

/**
 * Routes (by upstream model) failing for every caller, whatever the request: an upstream outage.
 * Nothing in the service sets it; a test does, from the isolate the task objects run in.
 */
const outages = new Map<string, Fault>();

/** Starts (or, with null, ends) an outage of the sandbox's route for `upstreamModel`. Test-only. */
export function setSandboxOutage(upstreamModel: string, fault: Fault | null): void {
  if (fault) outages.set(upstreamModel, fault);
  else outages.delete(upstreamModel);
}

/** What the job meets: the faults it asked for and its route's outage. */
function faults(job: ProviderJob, ctx: ProviderContext): Set<Fault> {
  const all = requested(job, ctx);
  const outage = outages.get(job.upstream_model);
  if (outage) all.add(outage);
  return all;
}

function latency(job: ProviderJob, ctx: ProviderContext): number {
  const scale = Number(ctx.env.SANDBOX_LATENCY_SCALE ?? "1");
  return (LATENCY_MS[job.capability] ?? DEFAULT_LATENCY_MS) * (Number.isFinite(scale) && scale >= 0 ? scale : 1);
}

/** Until the next tenth of the profile, at least 250 ms apart, never past the end. */
function nextPollMs(elapsed: number, total: number): number {
  const tenth = total / 10;
  const nextMark = (Math.floor(elapsed / tenth) + 1) * tenth;
  return Math.ceil(Math.min(total - elapsed, Math.max(250, nextMark - elapsed)));
}

function seedOf(job: ProviderJob): number {
  const seed = (job.request as { seed?: unknown }).seed;
  return typeof seed === "number" ? seed >>> 0 : hash32(job.task_id);
}

/** The inputs the simulator reads go with their bytes: PNG pictures, and the video an extension keeps. */
async function inputsOf(job: ProviderJob, ctx: ProviderContext): Promise<SandboxInput[]> {
  return Promise.all(
    job.inputs.map(async (input) => {
      const read = input.mime === "image/png" || (job.capability === "video_extend" && input.kind === "video");
      // An input no longer stored is simulated as unreadable, as the sandbox always has.
      const bytes = read ? await ctx.inputs.bytes(input).catch(() => undefined) : undefined;
      return { ...input, ...(bytes ? { data: bytes } : {}) };
    }),
  );
}

/** The outputs, made by the sandbox Worker (src/sandbox-worker) over its binding. */
async function rendered(job: ProviderJob, ctx: ProviderContext): Promise<ProviderResult> {
  const sandbox = sandboxService(ctx.env);
  if (!sandbox) throw new ProviderError("model_unavailable", "sandbox: this deployment has no SANDBOX binding");
  const outcome = await sandbox.render({
    task_id: job.task_id,
    capability: job.capability,
    request: job.request as unknown as Record<string, unknown>,
    inputs: await inputsOf(job, ctx),
    seed: seedOf(job),
    ...(job.card.outputs?.format ? { card_format: job.card.outputs.format } : {}),
    ...(ctx.env.SANDBOX_MUSIC_SECONDS ? { music_seconds: Number(ctx.env.SANDBOX_MUSIC_SECONDS) } : {}),
  });
  if ("error" in outcome) throw new ProviderError(outcome.error.code, outcome.error.message);
  return outcome.result;
}

export const sandboxAdapter: ProviderAdapter = {
  name: "sandbox",
  defaultBaseUrl: "",
  capabilities: PROVIDERS.sandbox?.media ?? [],
  chat: true,
  simulated: true,

  async submit(job, ctx) {
    return { job_id: `sbx_${hash32(job.task_id).toString(16)}`, submitted_at: ctx.now };
  },

  async poll(handle: ProviderHandle, job, ctx) {
    const f = faults(job, ctx);
    const total = latency(job, ctx);
    const elapsed = ctx.now - handle.submitted_at;
    const percent = total <= 0 ? 100 : Math.min(100, Math.floor((elapsed / total) * 100));
    if (f.has("provider_error"))
      return {
        state: "failed",
        error: { code: "model_request_failed", message: "sandbox: the simulated upstream returned 500 Internal Server Error" },
      };
    if (f.has("rate_limited"))
      return {
        state: "failed",
        error: { code: "model_rate_limited", message: "sandbox: the simulated upstream is rate-limited (429)" },
      };
    if (f.has("content_filtered") && percent >= 50) {
      return {
        state: "failed",
        error: { code: "content_filtered", message: "sandbox: the simulated safety filter blocked the output mid-generation" },
      };
    }
    if (f.has("stay_queued"))
      return { state: "queued", progress: { percent: 0, stage: "queued", message: "sandbox: waiting in the simulated queue" } };
    if (f.has("hang"))
      return { state: "running", progress: { percent: 50, stage: "generating", message: "sandbox: simulated stall" } };
    if (percent >= 100) return { state: "succeeded" };
    // Like an upstream that publishes its estimate: ask again when progress next moves a tenth
    // (or when the job ends), not on a blind backoff that finishes late and polls for nothing.
    const poll_after_ms = nextPollMs(elapsed, total);
    // The first tenth of the profile is time in the provider's queue.
    if (percent < 10)
      return { state: "queued", progress: { percent: 0, stage: "queued", message: "sandbox: queued" }, poll_after_ms };
    return {
      state: "running",
      progress: { percent: Math.max(1, Math.min(95, percent)), stage: "generating", message: "sandbox: generating" },
      poll_after_ms,
    };
  },

  async fetchResult(_handle, job, ctx) {
    if (faults(job, ctx).has("output_download"))
      throw new ProviderError("model_output_invalid", "sandbox: the simulated output URL returned 404");
    return rendered(job, ctx);
  },

  async cancel(_handle, job, ctx) {
    return faults(job, ctx).has("uncancelable") ? "not_cancelable" : "canceled";
  },

  requestedFailure(job, ctx) {
    return [...requested(job, ctx)].some((f) => FAILING.has(f));
  },
};
