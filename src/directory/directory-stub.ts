/** The directory's stubs, typed once: the one place a directory stub is cast (src/lib/remote.ts says why). */
import type { Env } from "../env";
import type { Remote } from "../lib/remote";
import type { DirectoryRpc } from "./directory-rpc";

export type DirectoryStub = Remote<DirectoryRpc>;

const SHARDS = 64;

/** The shard that holds a pointer: a stable hash of its name. */
export function directoryFor(env: Env, name: string): DirectoryStub {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return env.DIRECTORY.getByName(`directory-${(h >>> 0) % SHARDS}`) as unknown as DirectoryStub;
}
