/** The tenant's content review policy in its AccountObject (`tenant.safety_policy`, schema version 11). */
import { parsePolicy, type SafetyPolicy } from "./policy";

/** The policy that applies to the tenant: the operator's, else the default (review on). */
export function readSafetyPolicy(sql: SqlStorage): SafetyPolicy {
  const row = sql.exec<{ safety_policy: string | null }>("SELECT safety_policy FROM tenant LIMIT 1").toArray()[0];
  return parsePolicy(row?.safety_policy);
}

export function writeSafetyPolicy(sql: SqlStorage, policy: SafetyPolicy, at: string): void {
  sql.exec("UPDATE tenant SET safety_policy = ?, updated_at = ?", JSON.stringify(policy), at);
}
