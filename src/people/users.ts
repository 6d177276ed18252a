/** People by address: the directory's `user-email:<address>` pointer names their UserObject. */

import { directoryFor } from "../directory/directory-stub";
import type { Env } from "../env";
import { newId } from "../lib/ids";
import { userObject } from "./user-stub";

const pointer = (email: string) => `user-email:${email}`;

/** The user id of a normalised address, or null when no one has it. */
export async function userIdByEmail(env: Env, email: string): Promise<string | null> {
  return directoryFor(env, pointer(email)).get(pointer(email));
}

/**
 * The person with this normalised address, made when missing. Pointers are written once: when two
 * requests make the same person at once, the first pointer wins and both use it.
 */
export async function ensureUser(env: Env, email: string): Promise<{ user_id: string; email: string }> {
  const shard = directoryFor(env, pointer(email));
  let userId = await shard.get(pointer(email));
  if (!userId) {
    const fresh = newId("usr");
    userId = (await shard.put(pointer(email), fresh)) ? fresh : await shard.get(pointer(email));
    if (!userId) throw new Error(`the directory lost the pointer of ${email}`);
  }
  await userObject(env, userId).init(userId, email);
  return { user_id: userId, email };
}
