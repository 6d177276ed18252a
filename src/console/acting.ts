import type { Context } from "hono";
import type { Acting } from "../services/people";
import { type ConsoleEnv, principalOf } from "./context";
import { actorOf } from "./request-meta";

/** The signed-in member as the services know them, with where the request came from (the audit log's). */
export function acting(c: Context<ConsoleEnv>): Acting {
  const { ip, user_agent } = actorOf(c);
  return { principal: principalOf(c.get("member")), ip, user_agent };
}
