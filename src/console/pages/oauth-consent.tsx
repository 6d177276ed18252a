/**
 * The OAuth consent page (`/console/oauth/authorize`, reached from `GET /oauth/authorize`): the
 * signed-in member sees which application asks, where it will be sent back, what it may do and in
 * which tenant, and approves or denies. The request comes back with the form and is checked again
 * from scratch; approving makes an authorization code in the member's current tenant.
 */
import type { Context, Hono } from "hono";
import type { Permission } from "../../services/accounts";
import {
  AUTHORIZE_PARAMS,
  type AuthorizationRequest,
  approveAuthorization,
  checkAuthorizationRequest,
  mcpResourceUrl,
  OAUTH_SCOPES,
  oauthOrigin,
  redirectTo,
  roleScopes,
  SCOPE_LABELS,
} from "../../services/oauth";
import type { ConsoleEnv, Member } from "../context";
import { csrfField } from "../csrf";
import { formField } from "../form-body";
import { Layout } from "../layout";
import { render } from "../render";
import { actorOf } from "../request-meta";
import { requireMemberReturning } from "../return-to";
import { requireMember } from "../session";

function expected(c: Context<ConsoleEnv>) {
  return { issuer: oauthOrigin(c.env, c.req.raw), resource: mcpResourceUrl(c.env, c.req.raw) };
}

function refused(c: Context<ConsoleEnv>, message: string) {
  return render(
    c,
    <Layout title="This authorization request cannot be used" member={c.get("member")}>
      <p role="alert">{message}</p>
      <p class="muted">Go back to the application you came from and try connecting again.</p>
    </Layout>,
    400,
  );
}

/** The scopes asked for, each marked granted or not (the member's role decides). */
export function ScopeList(props: { asked: readonly Permission[]; member: Member }) {
  const allowed = new Set(roleScopes(props.member.role));
  return (
    <ul>
      {OAUTH_SCOPES.filter((s) => props.asked.includes(s)).map((s) => (
        <li>
          <code>{s}</code> — {SCOPE_LABELS[s]}
          {allowed.has(s) ? null : <span class="muted"> (not granted: your role is {props.member.role})</span>}
        </li>
      ))}
    </ul>
  );
}

/** The client as a person can judge it: its name, and the URL it is known by when it has one. */
export function ClientName(props: { name: string; clientId: string }) {
  return (
    <>
      <strong>{props.name}</strong>
      {props.clientId.startsWith("https://") || props.clientId.startsWith("http://") ? (
        <span class="muted">
          {" "}
          (<code>{props.clientId}</code>)
        </span>
      ) : (
        <span class="muted"> (registered client)</span>
      )}
    </>
  );
}

function consentPage(c: Context<ConsoleEnv>, request: AuthorizationRequest, params: URLSearchParams) {
  const member = c.get("member");
  const back = new URL(request.redirect_uri);
  // The answer to the form's post redirects there; the page's CSP must let the form end up at it.
  c.set("formAction", back.origin);
  const hidden = AUTHORIZE_PARAMS.map((name) => {
    const value = params.get(name);
    return value ? <input type="hidden" name={name} value={value} /> : null;
  });
  return render(
    c,
    <Layout title="Connect an application" member={member}>
      <p>
        <ClientName name={request.client.client_name} clientId={request.client.client_id} /> asks to act for you, {member.email},
        in the tenant <strong>{member.tenant_name}</strong>.
      </p>
      <p>It will be able to:</p>
      <ScopeList asked={request.scopes} member={member} />
      <p class="muted">
        After you answer, your browser goes back to <code>{back.host}</code>. The application can use this access until you revoke
        it under <a href="/console/connections">Connected apps</a>, or you leave the tenant.{" "}
        {(member.tenants?.length ?? 0) > 1 ? "To connect it to another tenant, switch tenant first and start again." : null}
      </p>
      <form class="inline" method="post" action="/console/oauth/authorize">
        {csrfField(c)}
        {hidden}
        <button type="submit" name="decision" value="approve">
          Approve
        </button>
        <button type="submit" name="decision" value="deny" class="secondary">
          Deny
        </button>
      </form>
    </Layout>,
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/oauth/authorize", requireMemberReturning, async (c) => {
    const params = new URL(c.req.url).searchParams;
    const check = await checkAuthorizationRequest(c.env, params, expected(c));
    if (check.kind === "page") return refused(c, check.message);
    if (check.kind === "redirect") return c.redirect(check.location, 303);
    return consentPage(c, check.request, params);
  });

  app.post("/oauth/authorize", requireMember, async (c) => {
    const params = new URLSearchParams();
    for (const name of AUTHORIZE_PARAMS) {
      const value = formField(c, name);
      if (value !== undefined) params.set(name, value);
    }
    const check = await checkAuthorizationRequest(c.env, params, expected(c));
    if (check.kind === "page") return refused(c, check.message);
    if (check.kind === "redirect") return c.redirect(check.location, 303);
    const request = check.request;
    const iss = expected(c).issuer;
    if (formField(c, "decision") !== "approve") {
      return c.redirect(
        redirectTo(request.redirect_uri, {
          error: "access_denied",
          error_description: "The user denied the request.",
          state: request.state,
          iss,
        }),
        303,
      );
    }
    const code = await approveAuthorization(c.env, c.get("member"), request, actorOf(c));
    return c.redirect(redirectTo(request.redirect_uri, { code, state: request.state, iss }), 303);
  });
}
