/** A person's UserObject: its RPC surface, declared apart from its class so `Env` needs no object. */
import type { CodeCheck, SessionView, UserTenant, UserView } from "./user-views";

export interface UserRpc extends Rpc.DurableObjectBranded {
  init(userId: string, email: string): UserView;
  profile(): UserView | null;
  addTenant(tenantId: string, tenantName: string): void;
  dropTenant(tenantId: string): void;
  tenants(): UserTenant[];
  issueCode(now: number, ip: string | null): Promise<{ code_id: string; code: string; expires_at: number } | null>;
  voidCode(codeId: string): void;
  verifyCode(input: string, now: number): Promise<CodeCheck>;
  startSession(input: {
    token_hash: string;
    tenant_id: string | null;
    now: number;
    ip: string | null;
    user_agent: string | null;
  }): SessionView | null;
  session(tokenHash: string, now: number): SessionView | null;
  sessionAndTenants(tokenHash: string, now: number): { session: SessionView; tenants: UserTenant[] } | null;
  setSessionTenant(sessionId: string, tenantId: string | null): void;
  endSession(sessionId: string, now: number): void;
}
