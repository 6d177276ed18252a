/** The request log object's RPC surface, declared apart from its class so `Env` needs no object. */
import type { LogRow } from "./entry";
import type { ShardPage, ShardQuery } from "./query";

export interface RequestLogRpc extends Rpc.DurableObjectBranded {
  /** An hour shard: appends entries (a batch from one isolate); `retentionDays` sets when the hour goes. */
  append(tenantId: string, hour: number, rows: LogRow[], retentionDays: number): void;
  /** An hour shard: its entries matching `query`, newest first. */
  page(query: ShardQuery): ShardPage;
  /** An hour shard: the newest entry with this request id. */
  byId(requestId: string): LogRow | null;
  /** An hour shard: a task's final charge, told by the task when it settles. */
  settle(taskId: string, charged: string): void;
  /** The tenant's directory: an hour now has entries (until `expiresAt`). */
  addHour(hour: number, expiresAt: number): void;
  /** The tenant's directory: the hours with entries in [fromHour, toHour], newest first. */
  hours(fromHour: number, toHour: number): number[];
}
