/**
 * What storage destinations ask of the tenant's account object. The account object
 * implements it (src/accounts/account-rpc.ts); callers reach it with `accountSlice` (src/tenancy/account-slice.ts).
 */
import type { AuditInput } from "../audit/audit-store";
import type { DestinationRecord, NewDestination } from "./destination-rows";
import type { S3Target } from "./s3";

export interface DestinationsAccountSlice {
  createStorageDestination(
    input: NewDestination,
    audit?: AuditInput,
  ): Promise<{ ok: true; destination: DestinationRecord } | { ok: false; code: "tenant_not_found" | "too_many" }>;
  storageDestinations(): DestinationRecord[];
  storageDestination(id: string | null): DestinationRecord | null;
  setDefaultStorageDestination(id: string, isDefault: boolean, audit?: AuditInput): DestinationRecord | null;
  deleteStorageDestination(id: string, audit?: AuditInput): DestinationRecord | null;
  openStorageDestination(id: string): Promise<(DestinationRecord & S3Target) | null>;
}
