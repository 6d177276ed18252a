/**
 * The caller a console member stands for when the console creates work on the tenant's behalf (a
 * task from the new-task form, a request run again): not an API key, but shaped like one's
 * resolution so that admission, uploads and the request log treat it as a key of this mode with
 * `tasks:write`. Its `key_id` (`console:<user_id>`) is what the log names as the acting principal.
 */
import type { Caller } from "../accounts/caller";
import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import { getTenantOr404 } from "../tenancy/account-slice";

/** The log's `key_id` for what a member did through the console. */
export function memberKeyId(userId: string): string {
  return `console:${userId}`;
}

/** The member as a caller of `mode`, with the tenant's request log settings (read fresh: the console caches no key). */
export async function memberCaller(env: Env, member: { tenant_id: string; user_id: string }, mode: KeyMode): Promise<Caller> {
  const tenant = await getTenantOr404(env, member.tenant_id);
  return {
    tenant_id: member.tenant_id,
    key_id: memberKeyId(member.user_id),
    permissions: ["tasks:write"],
    region: env.REGION,
    mode,
    rate: null,
    request_log: { body: tenant.request_body_logging, retention_days: tenant.request_log_retention_days },
  };
}
