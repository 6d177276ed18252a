import type { Env } from "../env";
import type { Role } from "../people/roles";
import type { ResolvedSession } from "../people/sessions";

/** Who is using the console: a signed-in user, in the tenant their session is on, with its role there. */
export interface Member {
  user_id: string;
  email: string;
  tenant_id: string;
  tenant_name: string;
  role: Role;
  session_id: string;
  /** Every tenant the person belongs to (the layout's switcher). */
  tenants?: { tenant_id: string; tenant_name: string }[];
  /** The session's CSRF token (the layout's own forms: sign-out, tenant switcher). */
  csrf?: string;
}

export type ConsoleEnv = {
  Bindings: Env;
  Variables: {
    member: Member;
    csrf: string;
    requestId: string;
    /** Set for a signed-in person, even one whom no tenant counts in any more (then `member` is unset). */
    session: ResolvedSession;
    /**
     * An origin a page's form may end up at after its post's redirect (the OAuth consent page sends
     * the browser on to the client's redirect URI), added to the page's CSP `form-action`.
     */
    formAction?: string;
    /** The posted form of a state-changing request, parsed once by the router (src/console/form-body.ts). */
    form?: FormData;
    /** This response's CSP nonce: every inline script carries it (`nonce={c.get("nonce")}`). */
    nonce: string;
  };
};

/** The principal of a console request, for the services (src/people/principal.ts). */
export function principalOf(member: Member) {
  return {
    kind: "session" as const,
    tenant_id: member.tenant_id,
    user_id: member.user_id,
    email: member.email,
    role: member.role,
  };
}
