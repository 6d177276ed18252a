/** A create's `output_destination_id`, or the tenant's default destination when it names none. */
import { accountFor } from "../accounts/service";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";

export async function outputDestination(
  env: Env,
  tenantId: string,
  requested: string | undefined,
): Promise<{ destination_id: string; prefix: string } | null> {
  const found = await accountFor(env, tenantId).storageDestination(requested ?? null);
  if (!found && requested !== undefined) {
    throw new ApiError("invalid_request", `Storage destination '${requested}' does not exist.`, {
      param: "/output_destination_id",
      details: { errors: [{ loc: ["body", "output_destination_id"], reason: "no such storage destination" }] },
    });
  }
  return found ? { destination_id: found.destination_id, prefix: found.prefix } : null;
}
