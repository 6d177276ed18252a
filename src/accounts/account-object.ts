import { DurableObject } from "cloudflare:workers";
import type { AuditInput } from "../audit/audit-store";
import { CheckoutStore } from "../billing/payments/checkout-store";
import { DestinationStore } from "../destinations/store";
import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import { type IssueHashes, OAuthGrantStore } from "../oauth/grant-store";
import { MembershipStore } from "../people/membership-store";
import { ProviderKeyStore } from "../provider-keys/store";
import { expireUploads, nextUploadExpiry, noteUploadExpiry } from "../retention/upload-expiry";
import { migrate } from "../storage/migrations";
import type { AccountContext, Args } from "../tenancy/account-context";
import { AccountEvents } from "../webhooks/account-events";
import { nextWebhookAt } from "../webhooks/delivery-rows";
import { EndpointStore } from "../webhooks/endpoint-store";
import type { AccountRpc } from "./account-rpc";
import { accountMigrations } from "./account-schema";
import { ApiKeyStore } from "./api-key-store";
import { nextLeaseAt, sweepLeases } from "./lease-sweep";
import type { ChargeItem } from "./ledger-answers";
import { chargeBatch, chargeOne } from "./ledger-charges";
import { LedgerStore } from "./ledger-store";
import { forwardSettlements, nextForwardAt } from "./log-forward";
import { insertQuote, type QuoteRecord, quoteRow, useQuoteRow } from "./quote-rows";
import { SigningKeyStore } from "./signing-key-store";
import { SpendAlerts } from "./spend-alerts";
import { insertTaskIndex, listTasks, type TaskIndexEntry, type TaskIndexQuery } from "./task-index";
import { withFeatures } from "./tenant-features";
import { TenantStore } from "./tenant-store";
import { type UsageNote, type UsageQuery, usageRows } from "./usage";

/**
 * One per tenant (named by tenant id): its RPC surface. Each concern's rules live in its store
 * (the "Code" paragraph of docs/storage/account-object.md names them); this class sets up the
 * storage, runs the alarm and hands each call to its store. Schema: docs/storage/account-object.md.
 */
export class AccountObject extends DurableObject<Env> implements AccountRpc {
  private readonly sql = this.ctx.storage.sql;
  private readonly store: AccountContext = {
    sql: this.sql,
    env: this.env,
    transaction: (fn) => this.ctx.storage.transactionSync(fn),
    wakeAt: (at) => this.wakeAt(at),
    waitUntil: (p) => this.ctx.waitUntil(p),
  };
  /** OAuth grants of the tenant's members (src/oauth/grant-store.ts). */
  private readonly oauth = new OAuthGrantStore(this.ctx.storage);
  private readonly alerts = new SpendAlerts(this.store);
  private readonly ledgerStore = new LedgerStore(this.store, this.alerts);
  private readonly tenant = new TenantStore(this.store, this.ledgerStore);
  private readonly keys = new ApiKeyStore(this.store);
  private readonly signing = new SigningKeyStore(this.store);
  private readonly endpoints = new EndpointStore(this.store);
  private readonly events = new AccountEvents(this.store);
  private readonly providerKeyStore = new ProviderKeyStore(this.store);
  private readonly destinations = new DestinationStore(this.store);
  private readonly checkoutStore = new CheckoutStore(this.store, this.ledgerStore);
  private readonly membership = new MembershipStore(this.store, this.tenant, this.oauth);
  /** The alarm as last set (null: none), read at start. */
  private alarmAt: number | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      await migrate(ctx.storage, accountMigrations(env));
      this.alarmAt = await ctx.storage.getAlarm();
    });
  }

  /** The earliest alarm wins; the alarm looks at every lease due and sets the next one. */
  private wakeAt(at: number): void {
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }

  /** Leases run out (src/accounts/lease-sweep.ts), the account's own webhooks, uploads at their end, settlements told to the request log. */
  override async alarm(): Promise<void> {
    this.alarmAt = null;
    await sweepLeases(this.store, this.ledgerStore, Date.now());
    await this.events.run();
    await expireUploads(this.sql, this.env.ARTIFACTS, Date.now());
    await forwardSettlements(this.store);
    const now = Date.now();
    const { sql } = this;
    const next = [nextLeaseAt(sql), nextWebhookAt(sql, now), nextUploadExpiry(sql), nextForwardAt(this.store, now)];
    const due = next.filter((x) => x != null) as number[];
    if (due.length > 0) this.wakeAt(Math.min(...due));
  }

  // ------------------------------------------------------------------ tenant (src/accounts/tenant-store.ts)
  create(input: Args<TenantStore["create"]>[0]) {
    return this.tenant.create(input);
  }
  get() {
    return this.tenant.view();
  }
  setStatus(...a: Args<TenantStore["setStatus"]>) {
    return this.tenant.setStatus(...a);
  }
  setRateLimit(perMinute: number | null) {
    return this.tenant.setRateLimit(perMinute);
  }
  setRetention(days: number, audit?: AuditInput) {
    return this.tenant.setRetention(days, audit);
  }
  setLogSettings(...a: Args<TenantStore["setLogSettings"]>) {
    return this.tenant.setLogSettings(...a);
  }
  safetyPolicy() {
    return this.tenant.safetyPolicy();
  }
  setSafetyPolicy(...a: Args<TenantStore["setSafetyPolicy"]>) {
    return this.tenant.setSafetyPolicy(...a);
  }
  /** An upload's end: this object's alarm deletes it then (src/retention/upload-expiry.ts). */
  noteUploadExpiry(artifactId: string, expiresAtMs: number): void {
    noteUploadExpiry(this.sql, artifactId, expiresAtMs);
    this.wakeAt(expiresAtMs);
  }

  // ------------------------------------------------------------------ API keys (src/accounts/api-key-store.ts)
  addApiKey(...a: Args<ApiKeyStore["add"]>) {
    return this.keys.add(...a);
  }
  apiKey(keyId: string) {
    return this.keys.get(keyId);
  }
  apiKeys() {
    return this.keys.list();
  }
  apiKeyPage(q: Args<ApiKeyStore["page"]>[0]) {
    return this.keys.page(q);
  }
  updateApiKey(...a: Args<ApiKeyStore["update"]>) {
    return this.keys.update(...a);
  }
  keyStanding(keyId: string) {
    return this.keys.standing(keyId);
  }
  keyStandings(keyIds: string[]) {
    return this.keys.standings(keyIds);
  }
  revokeApiKey(...a: Args<ApiKeyStore["revoke"]>) {
    return this.keys.revoke(...a);
  }
  rotateApiKey(...a: Args<ApiKeyStore["rotate"]>) {
    return this.keys.rotate(...a);
  }
  touchApiKey(keyId: string, at: string): void {
    this.keys.touch(keyId, at);
  }
  resolveKey(keyId: string, keyHash: string) {
    return this.keys.resolve(keyId, keyHash);
  }
  setKeyPermissions(...a: Args<ApiKeyStore["setPermissions"]>) {
    return this.keys.setPermissions(...a);
  }

  // ------------------------------------------------------------------ signing keys (src/accounts/signing-key-store.ts)
  createSigningKey(id: string, audit?: AuditInput) {
    return this.signing.create(id, audit);
  }
  rotateSigningKey(id: string, overlapMs: number, audit?: AuditInput) {
    return this.signing.rotate(id, overlapMs, audit);
  }
  retireSigningKey(id: string, audit?: AuditInput) {
    return this.signing.retire(id, audit);
  }
  signingKeyState(id: string) {
    return this.signing.state(id);
  }
  signingKeys() {
    return this.signing.list();
  }
  signingKey(id: string) {
    return this.signing.opened(id);
  }

  // ------------------------------------------------------------------ webhooks (src/webhooks/endpoint-store.ts, account-events.ts)
  createWebhookEndpoint(...a: Args<EndpointStore["create"]>) {
    return this.endpoints.create(...a);
  }
  webhookEndpoints(...a: Args<EndpointStore["list"]>) {
    return this.endpoints.list(...a);
  }
  webhookEndpoint(endpointId: string) {
    return this.endpoints.get(endpointId);
  }
  updateWebhookEndpoint(...a: Args<EndpointStore["update"]>) {
    return this.endpoints.update(...a);
  }
  webhookTargets(...a: Args<EndpointStore["targets"]>) {
    return this.endpoints.targets(...a);
  }
  webhookDeliveriesToRecover(endpointId: string, since: string, limit: number) {
    return this.endpoints.toRecover(endpointId, since, limit);
  }
  takeWebhookSends(g: Args<EndpointStore["takeSends"]>[0]) {
    return this.endpoints.takeSends(g);
  }
  settleWebhookSends(grantId: string, used: number, pacedUntil: number | null): void {
    this.endpoints.settleSends(grantId, used, pacedUntil);
  }
  webhookEndpointForDelivery(endpointId: string) {
    return this.endpoints.forDelivery(endpointId);
  }
  rotateWebhookSecret(endpointId: string, overlapMs: number, audit?: AuditInput) {
    return this.endpoints.rotateSecret(endpointId, overlapMs, audit);
  }
  deleteWebhookEndpoint(endpointId: string, audit?: AuditInput) {
    return this.endpoints.delete(endpointId, audit);
  }
  webhookDeliveryLog(q: Args<EndpointStore["logPage"]>[0]) {
    return this.endpoints.logPage(q);
  }
  webhookDeliveryLogged(deliveryId: string) {
    return this.endpoints.logged(deliveryId);
  }
  logWebhookDeliveries(rows: Args<AccountEvents["logDeliveries"]>[0]): void {
    this.events.logDeliveries(rows);
  }
  sendTestWebhook(endpointId: string, audit?: AuditInput) {
    return this.events.sendTest(endpointId, audit);
  }
  webhookDelivery(deliveryId: string) {
    return this.events.delivery(deliveryId);
  }
  resendWebhookDelivery(deliveryId: string, wait: boolean) {
    return this.events.resend(deliveryId, wait);
  }
  requeueWebhookDelivery(deliveryId: string, atMs: number) {
    return this.events.requeue(deliveryId, atMs);
  }

  // ------------------------------------------------------------------ provider keys (src/provider-keys/store.ts)
  putProviderKey(...a: Args<ProviderKeyStore["put"]>) {
    return this.providerKeyStore.put(...a);
  }
  updateProviderKeyRouting(...a: Args<ProviderKeyStore["updateRouting"]>) {
    return this.providerKeyStore.updateRouting(...a);
  }
  providerKeys() {
    return this.providerKeyStore.list();
  }
  providerKeyPlans() {
    return this.providerKeyStore.plans();
  }
  deleteProviderKey(provider: string, audit?: AuditInput) {
    return this.providerKeyStore.delete(provider, audit);
  }
  providerCredential(provider: string) {
    return this.providerKeyStore.credential(provider);
  }
  providerKeyRejected(provider: string, reason: string): void {
    this.providerKeyStore.rejected(provider, reason);
  }

  // ------------------------------------------------------------------ storage destinations (src/destinations/store.ts)
  createStorageDestination(...a: Args<DestinationStore["create"]>) {
    return this.destinations.create(...a);
  }
  storageDestinations() {
    return this.destinations.list();
  }
  storageDestination(id: string | null) {
    return this.destinations.get(id);
  }
  setDefaultStorageDestination(id: string, isDefault: boolean, audit?: AuditInput) {
    return this.destinations.setDefault(id, isDefault, audit);
  }
  deleteStorageDestination(id: string, audit?: AuditInput) {
    return this.destinations.delete(id, audit);
  }
  openStorageDestination(id: string) {
    return this.destinations.open(id);
  }

  // ------------------------------------------------------------------ purchases (src/billing/payments/checkout-store.ts)
  recordCheckout(...a: Args<CheckoutStore["record"]>) {
    return this.checkoutStore.record(...a);
  }
  completeCheckout(...a: Args<CheckoutStore["complete"]>) {
    return this.checkoutStore.complete(...a);
  }
  closeCheckout(...a: Args<CheckoutStore["close"]>) {
    return this.checkoutStore.close(...a);
  }
  checkouts(limit: number) {
    return this.checkoutStore.list(limit);
  }

  // ------------------------------------------------------------------ members and audit log (src/people/membership-store.ts)
  member(userId: string) {
    return this.membership.get(userId);
  }
  members() {
    return this.membership.list();
  }
  addMember(...a: Args<MembershipStore["add"]>) {
    return this.membership.add(...a);
  }
  activateMember(userId: string) {
    return this.membership.activate(userId);
  }
  changeMember(...a: Args<MembershipStore["change"]>) {
    return this.membership.change(...a);
  }
  recordAudit(entry: AuditInput): boolean {
    return this.membership.recordAudit(entry);
  }
  audit(q: Args<MembershipStore["audit"]>[0]) {
    return this.membership.audit(q);
  }

  // ------------------------------------------------------------------ OAuth grants (src/oauth/grant-store.ts)
  oauthCreateCode(input: Args<OAuthGrantStore["createCode"]>[0], audit: AuditInput) {
    return this.oauth.createCode(input, audit, Date.now());
  }
  oauthRedeemCode(codeHash: string, presented: Args<OAuthGrantStore["redeemCode"]>[1], issue: IssueHashes) {
    return this.oauth.redeemCode(codeHash, presented, issue, Date.now());
  }
  oauthIssueDeviceGrant(input: Args<OAuthGrantStore["issueDeviceGrant"]>[0], issue: IssueHashes) {
    return this.oauth.issueDeviceGrant(input, issue, Date.now());
  }
  oauthRefresh(refreshHash: string, presented: Args<OAuthGrantStore["refresh"]>[1], issue: IssueHashes) {
    return this.oauth.refresh(refreshHash, presented, issue, Date.now());
  }
  oauthResolveAccess(accessHash: string) {
    return this.oauth.resolveAccess(accessHash, Date.now());
  }
  oauthGrants(userId?: string) {
    return this.oauth.grants(userId);
  }
  oauthRevokeGrant(grantId: string, userId: string | null, audit: AuditInput) {
    return this.oauth.revokeGrant(grantId, userId, audit, Date.now());
  }
  oauthRevokeToken(hash: string, clientId: string | null) {
    return this.oauth.revokeToken(hash, clientId, Date.now());
  }

  // ------------------------------------------------------------------ ledger (src/accounts/ledger-store.ts)
  grantCredits(amount: string, source: string) {
    return this.ledgerStore.grantCredits(amount, source);
  }
  grants(limit: number) {
    return this.ledgerStore.grants(limit);
  }
  // `told`: a task object learns the tenant's features with the answer (src/tenancy/tenant-features.ts).
  // `confirm`: holds of tasks committed since, so that the lease sweep need not ask their objects.
  reserve(taskId: string, amount: string, opts: Args<LedgerStore["reserve"]>[2] & { confirm?: string[] } = {}, told = false) {
    const { confirm, ...hold } = opts;
    if (confirm) this.ledgerStore.confirmHolds(confirm);
    return withFeatures(this.sql, this.ledgerStore.reserve(taskId, amount, hold), told);
  }
  capture(taskId: string, actual: string, usage?: UsageNote, told = false) {
    return withFeatures(this.sql, this.ledgerStore.capture(taskId, actual, usage), told);
  }
  release(taskId: string, usage?: UsageNote, told = false) {
    return withFeatures(this.sql, this.ledgerStore.release(taskId, usage), told);
  }
  charge(id: string, amount: string, usage?: UsageNote, keyId?: string) {
    return chargeOne(this.store, this.ledgerStore, this.alerts, { id, amount, usage, key_id: keyId });
  }
  chargeBatch(items: ChargeItem[]) {
    return chargeBatch(this.store, this.ledgerStore, this.alerts, items);
  }
  balanceView() {
    return this.ledgerStore.balanceView();
  }
  ledger() {
    return this.ledgerStore.audit();
  }
  usage(q: UsageQuery) {
    return usageRows(this.sql, q);
  }

  // ------------------------------------------------------------------ quotes (src/accounts/quote-rows.ts)
  /** Stores a quote (docs/storage/account-object.md, "Quotes"); sweeps those long expired. */
  saveQuote(quote: QuoteRecord): QuoteRecord {
    insertQuote(this.sql, quote, Date.now());
    return quote;
  }
  quote(quoteId: string) {
    return quoteRow(this.sql, quoteId);
  }
  /** Marks a quote used by one task object (named by its Idempotency-Key); atomic per tenant. */
  useQuote(quoteId: string, mode: KeyMode, by: string) {
    return useQuoteRow(this.sql, quoteId, mode, by, Date.now());
  }

  // ------------------------------------------------------------------ task index (src/accounts/task-index.ts)
  indexTask(entry: TaskIndexEntry): void {
    insertTaskIndex(this.sql, entry, true);
  }
  listTasks(q: TaskIndexQuery) {
    return listTasks(this.sql, q);
  }
}
