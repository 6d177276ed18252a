import type { AuditInput } from "../audit/audit-store";
import { writeAudited } from "../audit/audit-store";
import type { AccountContext } from "../tenancy/account-context";
import { readTenant } from "../tenancy/tenant-row";
import {
  countDestinations,
  type DestinationRecord,
  defaultDestination,
  destinationRow,
  destinationRows,
  insertDestination,
  MAX_DESTINATIONS,
  markDestinationDeleted,
  type NewDestination,
  openDestination,
  sealCredentials,
  setDefault,
} from "./destination-rows";
import type { S3Target } from "./s3";

/** The tenant's storage destinations (`storage_destinations`): buckets verified before the write, key pairs sealed here. */
export class DestinationStore {
  constructor(private readonly ctx: AccountContext) {}

  /** A destination already verified by its probe object; its key pair is sealed here before the write. */
  async create(
    input: NewDestination,
    audit?: AuditInput,
  ): Promise<{ ok: true; destination: DestinationRecord } | { ok: false; code: "tenant_not_found" | "too_many" }> {
    const sql = this.ctx.sql;
    if (!readTenant(sql)) return { ok: false, code: "tenant_not_found" };
    if (countDestinations(sql) >= MAX_DESTINATIONS) return { ok: false, code: "too_many" };
    const sealed = await sealCredentials(this.ctx.env.STORAGE_ENCRYPTION_KEY, input);
    if (countDestinations(sql) >= MAX_DESTINATIONS) return { ok: false, code: "too_many" };
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => insertDestination(sql, input, sealed, now));
    return { ok: true, destination: destinationRow(sql, input.destination_id) as DestinationRecord };
  }

  list(): DestinationRecord[] {
    return destinationRows(this.ctx.sql);
  }

  /** `id`, or the tenant's default when `id` is null. */
  get(id: string | null): DestinationRecord | null {
    return id === null ? defaultDestination(this.ctx.sql) : destinationRow(this.ctx.sql, id);
  }

  setDefault(id: string, isDefault: boolean, audit?: AuditInput): DestinationRecord | null {
    if (!destinationRow(this.ctx.sql, id)) return null;
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => setDefault(this.ctx.sql, id, isDefault));
    return destinationRow(this.ctx.sql, id);
  }

  delete(id: string, audit?: AuditInput): DestinationRecord | null {
    const found = destinationRow(this.ctx.sql, id);
    if (!found) return null;
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => markDestinationDeleted(this.ctx.sql, id, now));
    return found;
  }

  /** The key pair leaves the object, opened, only for a delivery made by the tenant's own task. */
  open(id: string): Promise<(DestinationRecord & S3Target) | null> {
    return openDestination(this.ctx.sql, this.ctx.env.STORAGE_ENCRYPTION_KEY, id);
  }
}
