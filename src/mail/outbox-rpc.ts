/** The local outbox's RPC surface, declared apart from its class so `Env` needs no object. */
import type { MailMessage, OutboxMessage } from "./message";

export interface OutboxRpc extends Rpc.DurableObjectBranded {
  put(message: MailMessage): OutboxMessage;
  list(q: { limit: number; to?: string }): OutboxMessage[];
}
