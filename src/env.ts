import type { AccountObject } from "./accounts/account-object";
import type { DirectoryObject } from "./accounts/directory-object";
import type { TaskObject } from "./tasks/task-object";

/** Bindings and configuration of the Worker (see wrangler.toml). */
export interface Env {
  CATALOG: KVNamespace;
  ACCOUNTS: DurableObjectNamespace<AccountObject>;
  DIRECTORY: DurableObjectNamespace<DirectoryObject>;
  TASKS: DurableObjectNamespace<TaskObject>;
  /** Outputs re-hosted by the service, served to their owner by /v1/artifacts/{id}. */
  ARTIFACTS: R2Bucket;
  /** The region this deployment serves; API keys of other regions are refused. */
  REGION: string;
  /** Operator token for `/admin/v1`; a secret in production, `.dev.vars` locally. */
  ADMIN_TOKEN?: string;
  /** "true" only in local development: lets callbacks and media URLs reach 127.0.0.1/localhost. */
  ALLOW_LOOPBACK_URLS?: string;
  /** Requests per minute per API key for tenants without their own limit (default 600; "0" = none). */
  RATE_LIMIT_PER_MINUTE?: string;
  /** "false" removes the built-in sandbox provider (it is on by default). */
  SANDBOX_ENABLED?: string;
  /** "true" lets a task's `metadata.sandbox_fault` inject faults into the sandbox (tests, drills). */
  SANDBOX_FAULT_INJECTION?: string;
  /** Fixes the length of sandbox songs in seconds (tests); by default 60 to 150 s. */
  SANDBOX_MUSIC_SECONDS?: string;
  /** Multiplies the sandbox's latency profile; "0" makes it finish at once. */
  SANDBOX_LATENCY_SCALE?: string;
  /** Base URL used in links and artifact URLs; defaults to the origin of the creating request. */
  PUBLIC_BASE_URL?: string;
  /** Base URL (up to the version, e.g. https://api.example.com/v1) of an OpenAI-compatible chat upstream. */
  PROVIDER_OPENAI_COMPATIBLE_BASE_URL?: string;
  /** Its API key; with the base URL, chat cards that route to `openai-compatible` are served there. */
  PROVIDER_OPENAI_COMPATIBLE_API_KEY?: string;
  /** Longest wait, in milliseconds, for its response headers and between pieces of its body (default 120000). */
  PROVIDER_OPENAI_COMPATIBLE_TIMEOUT_MS?: string;
}
