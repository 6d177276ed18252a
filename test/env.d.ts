type AppEnvBindings = import("../src/env").Env;

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
