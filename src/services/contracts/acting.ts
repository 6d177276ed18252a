/** Who does an act and from where: what the audit log records of it, whichever door it came through. */
import type { AuditActor } from "../../audit/audit-store";

export interface Acting {
  /** A console member, the member behind an OAuth grant, or the API key itself. */
  actor: AuditActor;
  /** The client's address as the edge reports it; null where none stands in front. */
  ip: string | null;
  user_agent: string | null;
}

/** Where a request came from, as every door reads it from its HTTP request. */
export function requestFrom(request: Request): Pick<Acting, "ip" | "user_agent"> {
  return {
    ip: request.headers.get("CF-Connecting-IP")?.trim() || null,
    user_agent: request.headers.get("User-Agent")?.slice(0, 300) ?? null,
  };
}
