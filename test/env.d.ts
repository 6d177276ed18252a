type AppEnvBindings = import("../src/env").Env;

declare namespace Cloudflare {
  interface Env extends AppEnvBindings {
    /** The catalog-data/ files, handed to the tests by vitest.config.ts. */
    TEST_CATALOG: string;
    /** The spec's error table rows, when the spec is beside the checkout; "[]" otherwise. */
    SPEC_ERROR_TABLE: string;
  }
  interface GlobalProps {
    mainModule: typeof import("../src/index");
  }
}
