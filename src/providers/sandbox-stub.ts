/** The sandbox Worker's service binding, typed once by its contract: the one place it is cast. */
import type { Env } from "../env";
import type { SandboxService } from "./sandbox-contract";

export function sandboxService(env: Env): SandboxService | undefined {
  return env.SANDBOX as unknown as SandboxService | undefined;
}
