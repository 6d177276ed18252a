/** The days a task keeps its outputs. */
import { callerRetentionDays, requestRetentionDays } from "../../retention/settings";
import type { CreateResult } from "../task-answers";
import type { AdmissionContext, CommonFields } from "./context";

/**
 * The days the task keeps its outputs. A body asking for more than the tenant allows is refused,
 * unless it is a retry of a task already made (the tenant may have lowered its retention since).
 */
export async function retentionOf(
  ctx: AdmissionContext,
  body: CommonFields,
  replay: () => Promise<CreateResult | null>,
): Promise<{ days: number } | { replay: CreateResult }> {
  const tenantDays = await callerRetentionDays(ctx.env, ctx.caller);
  if (body.output_retention_days !== undefined && body.output_retention_days > tenantDays) {
    const seen = await replay();
    if (seen) return { replay: seen };
  }
  return { days: requestRetentionDays(body.output_retention_days, tenantDays) };
}
