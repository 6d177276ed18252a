/** The request log object's RPC surface, declared apart from its class so `Env` needs no object. */
import type { KeyMode } from "../keys/api-keys";
import type { LogRow } from "./entry";
import type { ExportRecord, NewExport } from "./exports/export-rows";
import type { LedgerFact } from "./ledger-facts";
import type { AfterQuery, ShardPage, ShardQuery } from "./query";

export interface RequestLogRpc extends Rpc.DurableObjectBranded {
  /** An hour shard: appends entries (a batch from one isolate); `retentionDays` sets when the hour goes. */
  append(tenantId: string, hour: number, rows: LogRow[], retentionDays: number): void;
  /** An hour shard: its entries matching `query`, newest first. */
  page(query: ShardQuery): ShardPage;
  /** An hour shard: the entries written after `query.seq`, oldest write first (what an export reads). */
  after(query: AfterQuery): ShardPage;
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
  /** The tenant's directory: a new export (null: the tenant has MAX_EXPORTS already). */
  createExport(input: NewExport): Promise<ExportRecord | null>;
  /** The tenant's directory: its exports (of one mode), oldest first. */
  exports(mode?: KeyMode): ExportRecord[];
  exportById(exportId: string): ExportRecord | null;
  /** The tenant's directory: forgets the export and its cursors; false when there was none. */
  deleteExport(exportId: string): Promise<boolean>;
  /** The tenant's directory: runs the export now (after any run under way) and answers it as it then is. */
  runExport(exportId: string): Promise<ExportRecord | null>;
}
