/** The request log object's RPC surface, declared apart from its class so `Env` needs no object. */
import type { LogRow } from "./entry";
import type { LedgerFact } from "./ledger-facts";
import type { ShardPage, ShardQuery } from "./query";

export interface RequestLogRpc extends Rpc.DurableObjectBranded {
  /** An hour shard: appends entries (a batch from one isolate); `retentionDays` sets when the hour goes. */
  append(tenantId: string, hour: number, rows: LogRow[], retentionDays: number): void;
  /** An hour shard: its entries matching `query`, newest first. */
  page(query: ShardQuery): ShardPage;
  /** An hour shard: the newest entry with this request id. */
  byId(requestId: string): LogRow | null;
  /** An hour shard: what the ledger settled for its requests (src/accounts/log-forward.ts). */
  ledgerFacts(tenantId: string, hour: number, facts: LedgerFact[], retentionDays: number, fallback?: boolean): void;
  /** An hour shard: the facts of requests it holds, applied; answers their ids. */
  factsIfPresent(facts: LedgerFact[]): string[];
  /** The tenant's directory: an hour now has entries (until `expiresAt`). */
  addHour(hour: number, expiresAt: number): void;
  /** The tenant's directory: the hours with entries in [fromHour, toHour], newest first. */
  hours(fromHour: number, toHour: number): number[];
}
