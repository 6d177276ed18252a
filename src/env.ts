/**
 * Bindings and configuration of the Worker (see wrangler.toml). The Durable Object namespaces are
 * bound untyped, so this file (which nearly every module imports) imports no object: each object's
 * stub module (`*-stub.ts`) gives its stubs the object's RPC interface (`*-rpc.ts`), once.
 */
export interface Env {
  CATALOG: KVNamespace;
  ACCOUNTS: DurableObjectNamespace;
  DIRECTORY: DurableObjectNamespace;
  TASKS: DurableObjectNamespace;
  BATCHES: DurableObjectNamespace;
  /** Per-key rate-limit counters, in memory (src/rate-limits/rate-limit.ts). */
  RATE_COUNTERS: DurableObjectNamespace;
  /** Route health, one per provider (src/health/health-object.ts). */
  HEALTH: DurableObjectNamespace;
  /** OAuth clients (`client:<client_id>`) and device authorizations (`device:<USERCODE>`), src/oauth/oauth-object.ts. */
  OAUTH: DurableObjectNamespace;
  /** The request log: one per tenant and hour, one per tenant listing its hours (src/request-log/log-object.ts). */
  REQUEST_LOG: DurableObjectNamespace;
  /** "off": no request is recorded in the request log (a deployment that must keep no request metadata; the bench's baseline). */
  REQUEST_LOG_RECORDING?: string;
  /** One per person who can sign in to the console (src/people/user-object.ts). */
  USERS: DurableObjectNamespace;
  /** The local outbox (EMAIL_OUTBOX): mail kept and printed instead of sent. Used only where EMAIL_OUTBOX is "true" (the local configuration). */
  OUTBOX?: DurableObjectNamespace;
  /** Outputs re-hosted by the service, served to their owner by /v1/artifacts/{id}. */
  ARTIFACTS: R2Bucket;
  /** The region this deployment serves; API keys of other regions are refused. */
  REGION: string;
  /** Operator token for `/admin/v1`; a secret in production, `.dev.vars` locally. */
  ADMIN_TOKEN?: string;
  /**
   * 32 random bytes, base64: seals secrets kept at rest (callback signing secrets). A secret in the
   * regions (`wrangler secret put STORAGE_ENCRYPTION_KEY --env <region>`); a fixed value locally.
   */
  STORAGE_ENCRYPTION_KEY?: string;
  /** "true" only in local development: lets callbacks and media URLs reach 127.0.0.1/localhost. */
  ALLOW_LOOPBACK_URLS?: string;
  /**
   * The console's mail (sign-in codes, invitations): an HTTP email API speaking Resend's `POST /emails`
   * (src/mail/http-sender.ts). EMAIL_API_URL defaults to https://api.resend.com; EMAIL_API_KEY is a secret.
   */
  EMAIL_API_URL?: string;
  EMAIL_API_KEY?: string;
  /** The sender, e.g. `Media API <login@example.com>`. */
  EMAIL_FROM?: string;
  /** "true" only in the local configuration: mail goes to the outbox (log + GET /admin/v1/outbox), never out. */
  EMAIL_OUTBOX?: string;
  /** "true" only in the local configuration (plain http): the console's cookies lack `Secure` and the `__Host-` prefix. */
  CONSOLE_INSECURE_COOKIES?: string;
  /** Requests per minute per API key for tenants without their own limit (default 600; "0" = none). */
  RATE_LIMIT_PER_MINUTE?: string;
  /** "false" removes the built-in sandbox provider (it is on by default and serves test-mode keys). */
  SANDBOX_ENABLED?: string;
  /**
   * "true" only in the local configuration: live keys get the sandbox for cards that no configured
   * real provider serves (marked `simulated_output`). In the regions a live key never gets simulated output.
   */
  SANDBOX_FOR_LIVE_KEYS?: string;
  /** The platform fee on a task served on a tenant's own provider key, in percent of the card price (default 0). */
  BYOK_FEE_PERCENT?: string;
  /**
   * Signs the short-lived URLs that upstreams read inputs from (default: derived from ADMIN_TOKEN);
   * the signed output URLs of envelopes (`/files/…`) use another key derived from the same secret.
   */
  INPUT_URL_SECRET?: string;
  /** "true" lets a task's `metadata.sandbox_fault` inject faults into the sandbox (tests, drills). */
  SANDBOX_FAULT_INJECTION?: string;
  /** Fixes the length of sandbox songs in seconds (tests); by default 60 to 150 s. */
  SANDBOX_MUSIC_SECONDS?: string;
  /** Multiplies the sandbox's latency profile; "0" makes it finish at once. */
  SANDBOX_LATENCY_SCALE?: string;
  /**
   * Multiplies the waits the service itself chooses between calls to an upstream (poll intervals,
   * retry backoff), between 0 and 1; unset is 1, the real pace. Only the provider tests set it
   * (src/providers/pace.ts); an upstream's own Retry-After is never scaled.
   */
  UPSTREAM_PACE_SCALE?: string;
  /** The sandbox Worker (src/sandbox-worker), by a service binding: it makes the sandbox's outputs. Typed by its contract in src/providers/sandbox-stub.ts. */
  SANDBOX?: Fetcher;
  /** The docs Worker (src/docs-worker), by a service binding: the API reference viewer's static files. */
  DOCS?: Fetcher;
  /**
   * The deployment's public address (per region): links, artifact URLs, input URLs for upstreams and
   * webhook URLs are built from it, never from a request's Host. Unset: links are relative paths.
   */
  PUBLIC_BASE_URL?: string;
  /**
   * Buying credits through Stripe Checkout (src/billing/payments/): the secret API key and the
   * webhook endpoint's signing secret (`whsec_…`), both secrets; payments are on only with both.
   * PAYMENTS_STRIPE_BASE_URL replaces https://api.stripe.com (tests, a proxy).
   */
  PAYMENTS_STRIPE_SECRET_KEY?: string;
  PAYMENTS_STRIPE_WEBHOOK_SECRET?: string;
  PAYMENTS_STRIPE_BASE_URL?: string;
  /**
   * Credits per unit of each currency sold, e.g. "usd:100,eur:105" (default "usd:100": 1 credit =
   * US$0.01); the first currency is the default one.
   */
  PAYMENTS_CREDITS_PER_UNIT?: string;
  /**
   * Content safety review at admission (src/safety/config.ts, README "Content safety"):
   * SAFETY_PROVIDER `openai` | `llama-guard` | unset (the built-in reviewer); SAFETY_API_URL and
   * the secret SAFETY_API_KEY for OpenAI's moderation endpoint; SAFETY_MODEL (default
   * omni-moderation-latest); SAFETY_FAILURE_MODE `closed` (default) | `open`; SAFETY_TIMEOUT_MS
   * (default 3000); SAFETY_REVIEW_CHAT "true" reviews chat completions too.
   */
  SAFETY_PROVIDER?: string;
  SAFETY_API_URL?: string;
  SAFETY_API_KEY?: string;
  SAFETY_MODEL?: string;
  SAFETY_FAILURE_MODE?: string;
  SAFETY_TIMEOUT_MS?: string;
  SAFETY_REVIEW_CHAT?: string;
  /** Workers AI (`[ai] binding = "AI"`), bound only where SAFETY_PROVIDER is `llama-guard`. */
  AI?: AiBinding;
  /**
   * Upstream providers: PROVIDER_<NAME>_API_KEY, PROVIDER_<NAME>_BASE_URL, PROVIDER_<NAME>_TIMEOUT_MS,
   * PROVIDER_<NAME>_WEBHOOK_SECRET, … (src/providers/config.ts; docs/providers.md).
   */
  [providerVariable: `PROVIDER_${string}`]: string | undefined;
}

/** The part of the Workers AI binding the service uses (the Llama Guard reviewer, src/safety/providers/). */
export interface AiBinding {
  run(model: string, inputs: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<unknown>;
}
