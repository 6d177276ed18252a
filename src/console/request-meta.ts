import type { Context } from "hono";
import type { AuditActor } from "../services/audit";
import type { ConsoleEnv } from "./context";

/** The client's address as Cloudflare reports it (null where no edge stands in front, as in tests without it). */
export function clientIp(c: Context<ConsoleEnv>): string | null {
  return c.req.header("CF-Connecting-IP")?.trim() || null;
}

/** Who did a console action, from where: the signed-in member, their address and browser. */
export function actorOf(c: Context<ConsoleEnv>): { actor: AuditActor; ip: string | null; user_agent: string | null } {
  const member = c.get("member");
  return {
    actor: { type: "user", id: member.user_id, email: member.email },
    ip: clientIp(c),
    user_agent: c.req.header("User-Agent")?.slice(0, 300) ?? null,
  };
}
