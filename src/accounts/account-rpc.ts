/**
 * The account object's RPC surface (one object per tenant), declared apart from its class so that
 * `Env` and the callers know it without importing the object and all it runs on. The class
 * implements it; src/accounts/account-stub.ts hands it out.
 */
import type { AuditEntry, AuditInput } from "../audit/audit-store";
import type { CheckoutView, PaymentOutcome } from "../billing/payments/checkout-rows";
import type { DestinationRecord, NewDestination } from "../destinations/destination-rows";
import type { S3Target } from "../destinations/s3";
import type { AccessResolution, IssueHashes, IssueResult, OAuthGrantStore, OAuthGrantView } from "../oauth/grant-store";
import type { MemberRecord, MemberStatus } from "../people/members-store";
import type { Role } from "../people/roles";
import type { ProviderKeyPlan, ProviderKeyRecord, ProviderKeyWrite } from "../provider-keys/rows";
import type { SafetyPolicy } from "../safety/policy";
import type { DeliveryLogQuery, LoggedDelivery, unsucceededSince } from "../webhooks/delivery-log";
import type { AttemptRow, DeliveryRow, RequeueOutcome } from "../webhooks/delivery-rows";
import type { EndpointChange, EndpointCreation, NewEndpoint, WebhookEndpointRecord } from "../webhooks/endpoint-rows";
import type { EventType } from "../webhooks/event-types";
import type { SendGrant, takeSends } from "../webhooks/send-budget";
import type { KeyIssueRefusal, KeyResolution, RotateOutcome } from "./api-key-answers";
import type { ApiKeyRecord, apiKeyPage, KeyChange, NewApiKey } from "./api-key-rows";
import type { KeyMode, Permission } from "./api-keys";
import type { KeyStanding } from "./key-spend";
import type { ChargeItem, GrantView, ReserveRefusal, Settlement, Totals } from "./ledger-answers";
import type { QuoteRecord, QuoteUse } from "./quote-rows";
import type { SigningKeyRotation, SigningKeyView } from "./signing-key-rows";
import type { TaskIndexEntry, TaskIndexQuery } from "./task-index";
import type { TenantStatus, TenantView } from "./tenant-row";
import type { UsageNote, UsageQuery, UsageRow } from "./usage";

type Grants = OAuthGrantStore;

export interface AccountRpc extends Rpc.DurableObjectBranded {
  // tenant
  create(input: {
    tenant_id: string;
    name: string;
    credits?: string;
    source?: string;
    owner?: { user_id: string; email: string };
    audit?: AuditInput;
  }): TenantView;
  get(): TenantView | null;
  setStatus(status: TenantStatus): TenantView | null;
  setRateLimit(perMinute: number | null): TenantView | null;
  setRetention(days: number, audit?: AuditInput): TenantView | null;
  safetyPolicy(): SafetyPolicy | null;
  setSafetyPolicy(policy: SafetyPolicy, audit?: AuditInput): SafetyPolicy | null;
  noteUploadExpiry(artifactId: string, expiresAtMs: number): void;

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

  // webhook endpoints and the account's own events
  createWebhookEndpoint(input: NewEndpoint, audit?: AuditInput): Promise<EndpointCreation>;
  webhookEndpoints(mode?: KeyMode): WebhookEndpointRecord[];
  webhookEndpoint(endpointId: string): WebhookEndpointRecord | null;
  updateWebhookEndpoint(endpointId: string, change: EndpointChange, audit?: AuditInput): WebhookEndpointRecord | null;
  webhookTargets(type: EventType, mode?: KeyMode): { endpoint_id: string; enabled: boolean }[];
  webhookDeliveriesToRecover(endpointId: string, since: string, limit: number): ReturnType<typeof unsucceededSince>;
  takeWebhookSends(g: Omit<Parameters<typeof takeSends>[1], "nowMs">): SendGrant;
  settleWebhookSends(grantId: string, used: number, pacedUntil: number | null): void;
  webhookEndpointForDelivery(endpointId: string): Promise<{ url: string; enabled: boolean; secrets: string[] } | null>;
  rotateWebhookSecret(
    endpointId: string,
    overlapMs: number,
    audit?: AuditInput,
  ): Promise<{ endpoint: WebhookEndpointRecord; secret: string } | null>;
  deleteWebhookEndpoint(endpointId: string, audit?: AuditInput): WebhookEndpointRecord | null;
  webhookDeliveryLog(q: DeliveryLogQuery): { rows: LoggedDelivery[]; has_more: boolean };
  webhookDeliveryLogged(deliveryId: string): LoggedDelivery | null;
  logWebhookDeliveries(rows: LoggedDelivery[]): void;
  sendTestWebhook(endpointId: string, audit?: AuditInput): Promise<{ delivery_id: string } | null>;
  webhookDelivery(deliveryId: string): (DeliveryRow & { attempts: AttemptRow[] }) | null;
  resendWebhookDelivery(deliveryId: string, wait: boolean): Promise<(DeliveryRow & { attempts: AttemptRow[] }) | null>;
  requeueWebhookDelivery(deliveryId: string, atMs: number): Promise<RequeueOutcome | null>;

  // provider keys
  putProviderKey(input: ProviderKeyWrite, audit?: AuditInput): ProviderKeyRecord | null;
  updateProviderKeyRouting(
    provider: string,
    change: Pick<ProviderKeyWrite, "mode" | "models" | "failover">,
    audit?: AuditInput,
  ): ProviderKeyRecord | null;
  providerKeys(): ProviderKeyRecord[];
  providerKeyPlans(): ProviderKeyPlan[];
  deleteProviderKey(provider: string, audit?: AuditInput): ProviderKeyRecord | null;
  providerCredential(provider: string): { key_sealed: string; base_url: string | null } | null;
  providerKeyRejected(provider: string, reason: string): void;

  // storage destinations
  createStorageDestination(
    input: NewDestination,
    audit?: AuditInput,
  ): Promise<{ ok: true; destination: DestinationRecord } | { ok: false; code: "tenant_not_found" | "too_many" }>;
  storageDestinations(): DestinationRecord[];
  storageDestination(id: string | null): DestinationRecord | null;
  setDefaultStorageDestination(id: string, isDefault: boolean, audit?: AuditInput): DestinationRecord | null;
  deleteStorageDestination(id: string, audit?: AuditInput): DestinationRecord | null;
  openStorageDestination(id: string): Promise<(DestinationRecord & S3Target) | null>;

  // purchases
  recordCheckout(
    c: Pick<CheckoutView, "checkout_id" | "provider" | "credits" | "amount" | "currency" | "created_by">,
    audit?: AuditInput,
  ): boolean;
  completeCheckout(
    p: { checkout_id: string; provider: string; event_id: string; amount: number; currency: string },
    audit?: AuditInput,
  ): PaymentOutcome;
  closeCheckout(checkoutId: string, provider: string, status: "expired" | "failed", eventId: string): boolean;
  checkouts(limit: number): CheckoutView[];

  // members and audit log
  member(userId: string): { member: MemberRecord; tenant: TenantView } | null;
  members(): MemberRecord[];
  addMember(
    m: { user_id: string; email: string; role: Role; status: MemberStatus; invited_by: string | null },
    audit?: AuditInput,
  ): { ok: true; member: MemberRecord } | { ok: false; code: "no_tenant" | "exists" };
  activateMember(userId: string): MemberRecord | null;
  changeMember(
    userId: string,
    role: Role | null,
    audit?: AuditInput,
  ): { ok: true; member: MemberRecord } | { ok: false; code: "not_found" | "last_owner" };
  recordAudit(entry: AuditInput): boolean;
  audit(q: { limit: number; before?: number }): { entries: AuditEntry[]; has_more: boolean };

  // OAuth grants
  oauthCreateCode(
    input: Parameters<Grants["createCode"]>[0],
    audit: AuditInput,
  ): { ok: true; scopes: Permission[] } | { ok: false; code: "not_member" };
  oauthRedeemCode(codeHash: string, presented: Parameters<Grants["redeemCode"]>[1], issue: IssueHashes): IssueResult;
  oauthIssueDeviceGrant(input: Parameters<Grants["issueDeviceGrant"]>[0], issue: IssueHashes): IssueResult;
  oauthRefresh(refreshHash: string, presented: Parameters<Grants["refresh"]>[1], issue: IssueHashes): IssueResult;
  oauthResolveAccess(accessHash: string): AccessResolution;
  oauthGrants(userId?: string): OAuthGrantView[];
  oauthRevokeGrant(grantId: string, userId: string | null, audit: AuditInput): OAuthGrantView | null;
  oauthRevokeToken(hash: string, clientId: string | null): "ok" | "wrong_client";

  // ledger
  grantCredits(amount: string, source: string): { grant: GrantView; balance: string } | null;
  grants(limit: number): GrantView[];
  reserve(
    taskId: string,
    amount: string,
    opts?: { lease_ms?: number; index?: TaskIndexEntry; key_id?: string },
  ): { ok: true; settlement: Settlement; balance: string } | ReserveRefusal;
  capture(taskId: string, actual: string, usage?: UsageNote): Settlement | null;
  release(taskId: string, usage?: UsageNote): Settlement | null;
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
