/** A person's UserObject stub, typed once: the one place a user stub is cast (src/lib/remote.ts says why). */
import type { Env } from "../env";
import type { Remote } from "../lib/remote";
import type { UserRpc } from "./user-rpc";

export type UserStub = Remote<UserRpc>;

export function userObject(env: Env, userId: string): UserStub {
  return env.USERS.getByName(userId) as unknown as UserStub;
}
