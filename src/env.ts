import type { AccountObject } from "./accounts/account-object";
import type { DirectoryObject } from "./accounts/directory-object";

/** Bindings and configuration of the Worker (see wrangler.toml). */
export interface Env {
  CATALOG: KVNamespace;
  ACCOUNTS: DurableObjectNamespace<AccountObject>;
  DIRECTORY: DurableObjectNamespace<DirectoryObject>;
  /** The region this deployment serves; API keys of other regions are refused. */
  REGION: string;
  /** Operator token for `/admin/v1`; a secret in production, `.dev.vars` locally. */
  ADMIN_TOKEN?: string;
  /** "true" only in local development: lets callbacks and media URLs reach 127.0.0.1/localhost. */
  ALLOW_LOOPBACK_URLS?: string;
}
