/** The account object's whole RPC surface, for the account's own concerns and the services (src/tenancy/account-slice.ts casts). */
import type { Env } from "../env";
import type { Remote } from "../lib/remote";
import { accountSlice, tenantSlice } from "../tenancy/account-slice";
import type { AccountRpc } from "./account-rpc";

export type AccountStub = Remote<AccountRpc>;

export function accountFor(env: Env, tenantId: string): AccountStub {
  return accountSlice<AccountRpc>(env, tenantId);
}

/** The account of a tenant id that came from outside; a malformed id cannot exist, so 404. */
export function tenantAccount(env: Env, tenantId: string): AccountStub {
  return tenantSlice<AccountRpc>(env, tenantId);
}
