import type { Env } from "../http/context";
import type { Member, ResolvedSession } from "../services/people";

export type { Member };

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
