/** The create's callback: an outside URL, and a signing key of the tenant's that is active. */
import { accountFor } from "../../accounts/account-stub";
import { ApiError } from "../../errors/api-error";
import { checkOutsideUrl, policyFrom } from "../../lib/url-policy";
import type { TaskPlan } from "../../task-record/record";
import type { AdmissionContext, CommonFields } from "./context";

export async function checkCallback(ctx: AdmissionContext, body: CommonFields): Promise<TaskPlan["callback"]> {
  if (body.callback_signing_key_id !== undefined && body.callback_url === undefined) {
    throw new ApiError("callback_url_required", "callback_signing_key_id needs a callback_url to sign deliveries to.", {
      param: "/callback_signing_key_id",
    });
  }
  if (body.callback_url === undefined) return null;
  const verdict = checkOutsideUrl(body.callback_url, policyFrom(ctx.env));
  if (!verdict.ok) {
    throw new ApiError("invalid_request", `callback_url ${verdict.reason}.`, {
      param: "/callback_url",
      details: { errors: [{ loc: ["body", "callback_url"], reason: verdict.reason }] },
    });
  }
  if (body.callback_signing_key_id !== undefined) {
    const key = await accountFor(ctx.env, ctx.caller.tenant_id).signingKeyState(body.callback_signing_key_id);
    if (!key) {
      throw new ApiError(
        "callback_signing_key_not_found",
        `Callback signing key '${body.callback_signing_key_id}' does not exist.`,
        {
          param: "/callback_signing_key_id",
        },
      );
    }
    if (key.status !== "active") {
      throw new ApiError("callback_signing_key_inactive", `Callback signing key '${body.callback_signing_key_id}' is retired.`, {
        param: "/callback_signing_key_id",
      });
    }
  }
  return { url: verdict.url.toString(), signing_key_id: body.callback_signing_key_id ?? null };
}
