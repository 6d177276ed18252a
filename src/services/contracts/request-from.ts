/** Where a request came from, as every door reads it from its HTTP request for the audit log. */
import type { AuditBy } from "../../audit/audited";

export type RequestFrom = Pick<AuditBy, "ip" | "user_agent">;

export function requestFrom(request: Request): RequestFrom {
  return {
    ip: request.headers.get("CF-Connecting-IP")?.trim() || null,
    user_agent: request.headers.get("User-Agent")?.slice(0, 300) ?? null,
  };
}
