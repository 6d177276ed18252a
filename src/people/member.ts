import type { Role } from "./roles";

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
