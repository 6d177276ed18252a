/**
 * The account object's RPC surface (one object per tenant), declared apart from its class so that
 * `Env` and the callers know it without importing the object and all it runs on. The class
 * implements it; src/accounts/account-stub.ts hands it out. Each concern that keeps rows here declares
 * what it asks of the object in its own `account-slice.ts`; this interface is their sum plus the
 * account's own concerns (tenant, API keys, signing keys, ledger, quotes, task index).
 */

import type { AuditAccountSlice } from "../audit/account-slice";
import type { AuditInput } from "../audit/audit-store";
import type { CheckoutsAccountSlice } from "../billing/payments/account-slice";
import type { DestinationsAccountSlice } from "../destinations/account-slice";
import type { KeyMode, Permission } from "../keys/api-keys";
import type { OAuthAccountSlice } from "../oauth/account-slice";
import type { MembersAccountSlice } from "../people/account-slice";
import type { ProviderKeysAccountSlice } from "../provider-keys/account-slice";
import type { RequestLogAccountSlice } from "../request-log/account-slice";
import type { RetentionAccountSlice } from "../retention/account-slice";
import type { SafetyAccountSlice } from "../safety/account-slice";
import type { TenantReadSlice } from "../tenancy/account-slice";
import type { TenantFeatures } from "../tenancy/tenant-features";
import type { TenantStatus, TenantView } from "../tenancy/tenant-row";
import type { WebhooksAccountSlice } from "../webhooks/account-slice";
import type { KeyIssueRefusal, KeyResolution, RotateOutcome } from "./api-key-answers";
import type { ApiKeyRecord, apiKeyPage, KeyChange, NewApiKey } from "./api-key-rows";
import type { KeyStanding } from "./key-spend";
import type { ChargeItem, GrantView, ReserveRefusal, Settlement, Totals } from "./ledger-answers";
import type { QuoteRecord, QuoteUse } from "./quote-rows";
import type { SigningKeyRotation, SigningKeyView } from "./signing-key-rows";
import type { TaskIndexEntry, TaskIndexQuery } from "./task-index";
import type { UsageNote, UsageQuery, UsageRow } from "./usage";

export interface AccountRpc
  extends Rpc.DurableObjectBranded,
    TenantReadSlice,
    AuditAccountSlice,
    MembersAccountSlice,
    RetentionAccountSlice,
    RequestLogAccountSlice,
    SafetyAccountSlice,
    WebhooksAccountSlice,
    ProviderKeysAccountSlice,
    DestinationsAccountSlice,
    CheckoutsAccountSlice,
    OAuthAccountSlice {
  // tenant
  create(input: {
    tenant_id: string;
    name: string;
    credits?: string;
    source?: string;
    owner?: { user_id: string; email: string };
    audit?: AuditInput;
  }): TenantView;
  setStatus(status: TenantStatus): TenantView | null;
  setRateLimit(perMinute: number | null): TenantView | null;
  // API keys
  addApiKey(input: NewApiKey, audit?: AuditInput, parentKeyId?: string): ApiKeyRecord | KeyIssueRefusal | null;
  apiKey(keyId: string): ApiKeyRecord | null;
  apiKeys(): ApiKeyRecord[];
  apiKeyPage(q: Parameters<typeof apiKeyPage>[1]): ReturnType<typeof apiKeyPage>;
  updateApiKey(keyId: string, change: KeyChange, audit?: AuditInput): ApiKeyRecord | null;
  keyStanding(keyId: string): KeyStanding | null;
  keyStandings(keyIds: string[]): Record<string, KeyStanding>;
  revokeApiKey(keyId: string, audit?: AuditInput): ApiKeyRecord | null;
  rotateApiKey(
    keyId: string,
    next: { key_id: string; key_hash: string; prefix: string; region: string; mode: KeyMode },
    opts: { grace_ms: number; now_ms: number; created_by: string | null },
    audit?: AuditInput,
  ): RotateOutcome;
  touchApiKey(keyId: string, at: string): void;
  resolveKey(keyId: string, keyHash: string): KeyResolution;
  setKeyPermissions(keyId: string, permissions: Permission[]): ApiKeyRecord | null;

  // callback signing keys
  createSigningKey(id: string, audit?: AuditInput): Promise<{ id: string; secret: string; created_at: string } | null>;
  rotateSigningKey(id: string, overlapMs: number, audit?: AuditInput): Promise<SigningKeyRotation>;
  retireSigningKey(id: string, audit?: AuditInput): SigningKeyView | null;
  signingKeyState(id: string): SigningKeyView | null;
  signingKeys(): SigningKeyView[];
  signingKey(id: string): Promise<(SigningKeyView & { secret: string; secrets: string[] }) | null>;

  // provider keys
  // purchases
  // OAuth grants
  // ledger
  grantCredits(amount: string, source: string): { grant: GrantView; balance: string } | null;
  grants(limit: number): GrantView[];
  reserve(
    taskId: string,
    amount: string,
    opts?: { lease_ms?: number; index?: TaskIndexEntry; key_id?: string; request_id?: string; confirm?: string[] },
    told?: boolean,
  ): { ok: true; settlement: Settlement; balance: string; features?: TenantFeatures } | ReserveRefusal;
  capture(taskId: string, actual: string, usage?: UsageNote, told?: boolean): (Settlement & { features?: TenantFeatures }) | null;
  release(taskId: string, usage?: UsageNote, told?: boolean): (Settlement & { features?: TenantFeatures }) | null;
  charge(id: string, amount: string, usage?: UsageNote, keyId?: string): { settlement: Settlement; balance: string };
  chargeBatch(items: ChargeItem[]): { settlements: Settlement[]; balance: string };
  balanceView(): { available: string; reserved: string } | null;
  ledger(): {
    totals: Totals;
    balance: string;
    recomputed: Totals;
    reservations: number;
    open_reservations: number;
    key_spend_mismatches: string[];
  };
  usage(q: UsageQuery): UsageRow[];

  // quotes
  saveQuote(quote: QuoteRecord): QuoteRecord;
  quote(quoteId: string): QuoteRecord | null;
  useQuote(quoteId: string, mode: KeyMode, by: string): QuoteUse;

  // task index
  indexTask(entry: TaskIndexEntry): void;
  listTasks(q: TaskIndexQuery): {
    task_ids: string[];
    has_more: boolean;
    last?: { created_at: string; task_id: string };
  };
}
