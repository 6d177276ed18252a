/**
 * What OAuth asks of the tenant's account object: codes, grants and tokens of its members. The account object
 * implements it (src/accounts/account-rpc.ts); callers reach it with `accountSlice` (src/tenancy/account-slice.ts).
 */
import type { AuditInput } from "../audit/audit-store";
import type { Permission } from "../keys/api-keys";
import type { AccessResolution, IssueHashes, IssueResult, OAuthGrantStore, OAuthGrantView } from "./grant-store";

type Grants = OAuthGrantStore;

export interface OAuthAccountSlice {
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
}
