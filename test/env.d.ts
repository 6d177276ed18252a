/**
 * The Worker's bindings, with each Durable Object namespace typed by its class: the source binds
 * them untyped and reaches them through one typed stub module each, but tests drive the objects
 * directly (runInDurableObject, their RPC methods).
 */
type DurableObjectBindings = {
  ACCOUNTS: DurableObjectNamespace<import("../src/accounts/account-object").AccountObject>;
  DIRECTORY: DurableObjectNamespace<import("../src/directory/directory-object").DirectoryObject>;
  TASKS: DurableObjectNamespace<import("../src/tasks/task-object").TaskObject>;
  BATCHES: DurableObjectNamespace<import("../src/batches/batch-object").BatchObject>;
  RATE_COUNTERS: DurableObjectNamespace<import("../src/rate-limits/rate-counter-object").RateCounterObject>;
  HEALTH: DurableObjectNamespace<import("../src/health/health-object").HealthObject>;
  REQUEST_LOG: DurableObjectNamespace<import("../src/request-log/log-object").RequestLogObject>;
  OAUTH: DurableObjectNamespace<import("../src/oauth/oauth-object").OAuthObject>;
  USERS: DurableObjectNamespace<import("../src/people/user-object").UserObject>;
  OUTBOX?: DurableObjectNamespace<import("../src/mail/outbox-object").OutboxObject>;
};
type AppEnvBindings = Omit<import("../src/env").Env, keyof DurableObjectBindings> & DurableObjectBindings;

declare namespace Cloudflare {
  interface Env extends AppEnvBindings {
    /** The catalog-data/ files, handed to the tests by vitest.config.ts. */
    TEST_CATALOG: string;
    /** The spec's error table rows, when the spec is beside the checkout; "[]" otherwise. */
    SPEC_ERROR_TABLE: string;
    /** The spec's limits table rows ({limit, value, applies_to}), when the spec is beside the checkout; "[]" otherwise. */
    SPEC_LIMITS_TABLE: string;
    /** docs/storage/*.md by file name. */
    STORAGE_DOCS: string;
    /** The callback receiver started by test/global-setup.ts. */
    RECEIVER_URL: string;
    /** The fake HTTP email API started by test/people/fake-mail-api.ts. */
    FAKE_MAIL_API_URL: string;
    /** The fake S3-compatible store started by test/destinations/fake-s3.ts. */
    FAKE_S3_URL: string;
  }
  interface GlobalProps {
    mainModule: typeof import("../src/index");
  }
}
