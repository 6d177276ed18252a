/**
 * The balance, read one way for every door: the tenant's live figures from its AccountObject,
 * and the caller's view of them in its key's mode (REST `GET /v1/balance`, the `get_balance` tool,
 * the console's overview and credits pages).
 */

import { accountFor } from "../accounts/account-stub";
import type { Caller } from "../accounts/service";
import type { Env } from "../env";
import { invalidApiKey } from "../errors/common";
import { type Balance, TEST_MODE_AVAILABLE_CREDITS } from "./contracts/balance";
/** The tenant's live balance (available and reserved credits), or null when there is no such tenant. */
export function tenantBalance(env: Env, tenantId: string): Promise<{ available: string; reserved: string } | null> {
  return accountFor(env, tenantId).balanceView();
}

/** The caller's balance in its key's mode: a test-mode key sees the fixed test balance. */
export async function balanceOf(env: Env, caller: Pick<Caller, "tenant_id" | "mode">): Promise<Balance> {
  const as_of = new Date().toISOString();
  if (caller.mode === "test") {
    return {
      object: "balance",
      mode: "test",
      available_credits: TEST_MODE_AVAILABLE_CREDITS,
      reserved_credits: "0",
      currency: "credits",
      as_of,
    };
  }
  const view = await tenantBalance(env, caller.tenant_id);
  if (!view) throw invalidApiKey();
  return {
    object: "balance",
    mode: "live",
    available_credits: view.available,
    reserved_credits: view.reserved,
    currency: "credits",
    as_of,
  };
}
