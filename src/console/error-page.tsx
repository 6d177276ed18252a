import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "../errors/api-error";
import type { ConsoleEnv } from "./context";
import { CsrfRefusal } from "./csrf";
import { Layout } from "./layout";
import { render } from "./render";
import { NoTenant, wantsJson } from "./session";

const TITLES: Record<number, string> = {
  401: "Sign in required",
  403: "Not allowed",
  404: "Not found",
  409: "Conflict",
  413: "Too large",
  422: "Not accepted",
  429: "Too many requests",
  502: "Could not send",
};

/**
 * The console's answer to an error: the API's error envelope for a script that asked for JSON,
 * otherwise a page in the console's frame with the same status.
 */
export async function consoleError(err: unknown, c: Context<ConsoleEnv>) {
  const member = c.get("member");
  if (err instanceof NoTenant) {
    const session = c.get("session");
    return render(
      c,
      <Layout title="No tenant">
        <p>
          You are signed in as {session?.session.email}, but no tenant counts you among its members any more. Ask an owner to
          invite you again.
        </p>
        <form method="post" action="/console/sign-out">
          <input type="hidden" name="_csrf" value={c.get("csrf") ?? ""} />
          <button type="submit">Sign out</button>
        </form>
      </Layout>,
      403,
    );
  }
  const disabled = c.get("session")?.disabled;
  if (err instanceof ApiError && err.code === "tenant_disabled" && disabled && !wantsJson(c.req.header("Accept"))) {
    return disabledPage(c, disabled);
  }
  const apiError =
    err instanceof ApiError ? err : new ApiError("internal_error", "An unexpected error occurred; try again in a moment.");
  if (!(err instanceof ApiError)) {
    console.error(
      JSON.stringify({ level: "error", request_id: c.get("requestId"), message: String(err), stack: (err as Error)?.stack }),
    );
  }
  const headers: Record<string, string> = { ...(apiError.headers ?? {}) };
  if (apiError.retryAfter !== undefined) headers["Retry-After"] = String(Math.ceil(apiError.retryAfter));
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  if (wantsJson(c.req.header("Accept"))) {
    return c.json({ error: apiError.toBody(c.get("requestId") ?? "unknown") }, apiError.status as ContentfulStatusCode);
  }
  const title = err instanceof CsrfRefusal ? "Request refused" : (TITLES[apiError.status] ?? "Something went wrong");
  return render(
    c,
    <Layout title={title} member={member}>
      <p role="alert">{apiError.message}</p>
      <p class="muted">
        Error <code>{apiError.code}</code> · request <code>{c.get("requestId")}</code>
      </p>
      <p>
        <a href={member ? "/console" : "/console/sign-in"}>{member ? "Back to the overview" : "Go to sign-in"}</a>
      </p>
    </Layout>,
    apiError.status as ContentfulStatusCode,
  );
}

/** The account the session is on is disabled: say so, and offer the person's other tenants and sign-out. */
function disabledPage(c: Context<ConsoleEnv>, disabled: { tenant_id: string; tenant_name: string }) {
  const signedIn = c.get("session");
  const others = (signedIn?.tenants ?? []).filter((t) => t.tenant_id !== disabled.tenant_id);
  const csrf = c.get("csrf") ?? "";
  return render(
    c,
    <Layout title="Account disabled">
      <p role="alert">
        The account <strong>{disabled.tenant_name}</strong> is disabled. Nothing can be done in it (through the console, its API
        keys or connected apps) until the operator enables it again.
      </p>
      <p class="muted">
        Error <code>tenant_disabled</code> · request <code>{c.get("requestId")}</code>
      </p>
      {others.length > 0 ? (
        <form class="inline" method="post" action="/console/switch-tenant">
          <input type="hidden" name="_csrf" value={csrf} />
          <label for="tenant_id">Go to another of your tenants</label>
          <select id="tenant_id" name="tenant_id">
            {others.map((t) => (
              <option value={t.tenant_id}>{t.tenant_name}</option>
            ))}
          </select>
          <button type="submit">Switch</button>
        </form>
      ) : null}
      <form method="post" action="/console/sign-out">
        <input type="hidden" name="_csrf" value={csrf} />
        <button type="submit" class="secondary">
          Sign out
        </button>
      </form>
    </Layout>,
    403,
  );
}
