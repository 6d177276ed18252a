/**
 * The one interface every upstream implements. The task object drives a media job: submit once,
 * poll until done, fetch the result, cancel on request. Adapters are stateless; whatever they need
 * between calls is in the handle the task object stores the moment `submit` returns.
 * Chat is the other half: an upstream that can answer chat completions exposes `chat`.
 */
import type { Env } from "../env";
import type { ProviderConfig } from "./config";
import type { MediaCapability, ProviderJob } from "./jobs";
import type { InputAccess, KeyCheck, PollResult, ProviderHandle, ProviderResult } from "./types";

export interface ProviderContext {
  env: Env;
  now: number;
  config: ProviderConfig;
  inputs: InputAccess;
  /** Where this provider may call back to wake the task, when the deployment has a public URL. */
  webhookUrl: string | null;
}

export interface ProviderAdapter {
  readonly name: string;
  /** The provider's documented API base (PROVIDER_<NAME>_BASE_URL overrides it). */
  readonly defaultBaseUrl: string;
  /** The media capabilities it serves (a card's route to it is live for these only). */
  readonly capabilities: readonly MediaCapability[];
  /** Whether it answers chat completions (`chatUpstream` in src/providers/chat.ts). */
  readonly chat?: boolean;
  /** Its outputs are simulated, not a real model's (the sandbox); as its entry in names.ts says. */
  readonly simulated?: boolean;
  submit(job: ProviderJob, ctx: ProviderContext): Promise<ProviderHandle>;
  poll(handle: ProviderHandle, job: ProviderJob, ctx: ProviderContext): Promise<PollResult>;
  /** Throws when the result cannot be read; the task object retries (3 attempts in all). */
  fetchResult(handle: ProviderHandle, job: ProviderJob, ctx: ProviderContext): Promise<ProviderResult>;
  cancel(handle: ProviderHandle, job: ProviderJob, ctx: ProviderContext): Promise<"canceled" | "not_cancelable">;
  /**
   * Whether the job itself asks to fail (a drill the adapter honours, as the sandbox's
   * `metadata.sandbox_fault`): its failures are then the request's, never counted against the route.
   */
  requestedFailure?(job: ProviderJob, ctx: ProviderContext): boolean;
  /**
   * What makes a `"canceled"` answer certain enough to start the job again elsewhere (a stalled job
   * moves only once its first job has stopped): `"answer"`, the answer itself (the upstream removes
   * or aborts the job before it answers); otherwise (`"status"`, the default) a status read after it
   * that shows the job ended, as where a running job only receives a cancellation signal.
   */
  readonly cancelStops?: "answer" | "status";
  /**
   * After a crash between a submission and the write of its handle: the job this task submitted,
   * found by the tag the adapter put on it, or null when there is none. Adapters whose upstream
   * cannot tag or list jobs leave it out (the rule for them is in docs/providers.md).
   */
  reconcile?(job: ProviderJob, ctx: ProviderContext, since: number): Promise<ProviderHandle | null>;
  /**
   * For an upstream without `reconcile` that calls back: the handle of the job an authentic webhook
   * names, when this task's submission went out with the webhook URL and its answer was lost.
   */
  adopt?(jobId: string, job: ProviderJob, ctx: ProviderContext, submittedAt: number): ProviderHandle;
  /**
   * Checks a webhook the provider sent to /webhooks/providers/<name>/<task_id>. Returns the upstream
   * job id it is about when it is authentic, null otherwise. A webhook only wakes the task early:
   * polling still decides the outcome, so a lost or forged one changes nothing.
   */
  verifyWebhook?(request: Request, body: Uint8Array, config: ProviderConfig): Promise<{ job_id: string } | null>;
  /**
   * Checks a credential (a tenant's own key) with the provider's cheapest authenticated call, a
   * model list where one exists: resolves when accepted (with a warning when the key is valid but
   * cannot serve yet, as an account without credit), throws the provider's ProviderError when not.
   * Adapters whose provider documents no such call leave it out (the key is then stored `unchecked`).
   */
  verifyKey?(config: ProviderConfig): Promise<KeyCheck | undefined> | Promise<void>;
}
