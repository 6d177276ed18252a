/** The local outbox's stub, typed once: the one place an outbox stub is cast (src/lib/remote.ts says why). */
import type { Env } from "../env";
import type { Remote } from "../lib/remote";
import type { OutboxRpc } from "./outbox-rpc";

export type OutboxStub = Remote<OutboxRpc>;

/** The one outbox, where the OUTBOX binding exists (the local configuration). */
export function outboxOf(env: Env): OutboxStub | null {
  return env.OUTBOX ? (env.OUTBOX.getByName("outbox") as unknown as OutboxStub) : null;
}
