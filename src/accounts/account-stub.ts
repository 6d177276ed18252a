/** The account object's stubs, typed once: the one place an account stub is cast (src/lib/remote.ts says why). */
import type { Env } from "../env";
import { tenantNotFound } from "../errors/not-found";
import type { Remote } from "../lib/remote";
import type { AccountRpc } from "./account-rpc";

export type AccountStub = Remote<AccountRpc>;

const TENANT_ID = /^ten_[0-9a-z]{26}$/;

export function accountFor(env: Env, tenantId: string): AccountStub {
  return env.ACCOUNTS.getByName(tenantId) as unknown as AccountStub;
}

/** The account of a tenant id that came from outside; a malformed id cannot exist, so 404. */
export function tenantAccount(env: Env, tenantId: string): AccountStub {
  if (!TENANT_ID.test(tenantId)) throw tenantNotFound(tenantId);
  return accountFor(env, tenantId);
}
