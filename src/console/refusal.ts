/**
 * A service's refusal of a console form, shown on the page again: its message as an error flash,
 * with its status. Anything else (not an ApiError, a forbidden, or a script asking for JSON) is
 * thrown on, to the error page or the JSON envelope.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "../errors/api-error";
import type { ConsoleEnv } from "./context";
import type { Flash } from "./flash";
import { wantsJson } from "./session";

export function refusal(c: Context<ConsoleEnv>, e: unknown): { flash: Flash; status: ContentfulStatusCode; error: ApiError } {
  if (!(e instanceof ApiError) || e.code === "forbidden" || wantsJson(c.req.header("Accept"))) throw e;
  return { flash: { kind: "error", text: e.message }, status: e.status as ContentfulStatusCode, error: e };
}

/**
 * Runs a form's work; a service refusal shows `page` again with it (its flash and status), and
 * what `refusal` does not take (not an ApiError, a forbidden, a JSON caller) is thrown on.
 */
export async function showingRefusals(
  c: Context<ConsoleEnv>,
  page: (c: Context<ConsoleEnv>, flash: Flash, status: ContentfulStatusCode) => Promise<Response> | Response,
  work: () => Promise<Response>,
): Promise<Response> {
  try {
    return await work();
  } catch (e) {
    const { flash, status } = refusal(c, e);
    return page(c, flash, status);
  }
}
