import type { AuditInput } from "../audit/audit-store";
import { writeAudited } from "../audit/audit-store";
import { seal } from "../lib/sealed";
import type { AccountContext } from "../tenancy/account-context";
import { readTenant } from "../tenancy/tenant-row";
import { newSigningSecret } from "../webhooks/callback-signing";
import type { SigningKeyRotation } from "./signing-key-rows";
import {
  prepareRotation,
  type SigningKeyView,
  signingKeyRow,
  signingKeyRows,
  signingSecrets,
  writeRotation,
} from "./signing-key-rows";

/** The tenant's callback signing keys (`signing_keys`): secrets sealed here, opened only to sign. */
export class SigningKeyStore {
  constructor(private readonly ctx: AccountContext) {}

  async create(id: string, audit?: AuditInput): Promise<{ id: string; secret: string; created_at: string } | null> {
    if (!readTenant(this.ctx.sql)) return null;
    const secret = newSigningSecret();
    const sealed = await seal(this.ctx.env.STORAGE_ENCRYPTION_KEY, secret, id);
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () =>
      this.ctx.sql.exec(
        "INSERT INTO signing_keys (id, secret_sealed, status, created_at) VALUES (?, ?, 'active', ?)",
        id,
        sealed,
        now,
      ),
    );
    return { id, secret, created_at: now };
  }

  /**
   * A new secret for an active key; the current one keeps signing beside it for `overlap_ms`
   * (0: stops at once). A rotation during an overlap ends that overlap: only two secrets sign.
   */
  async rotate(id: string, overlapMs: number, audit?: AuditInput): Promise<SigningKeyRotation> {
    const before = this.state(id);
    if (!before) return { ok: false, code: "callback_signing_key_not_found" };
    if (before.status !== "active") return { ok: false, code: "callback_signing_key_inactive" };
    const { secret, sealed } = await prepareRotation(this.ctx.env.STORAGE_ENCRYPTION_KEY, id);
    // Sealing awaited: the key may have been retired meanwhile.
    if (this.state(id)?.status !== "active") return { ok: false, code: "callback_signing_key_inactive" };
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    writeAudited(this.ctx, audit, now, () =>
      writeRotation(this.ctx.sql, id, sealed, now, overlapMs > 0 ? new Date(nowMs + overlapMs).toISOString() : null),
    );
    return { ok: true, key: { ...(this.state(id) as SigningKeyView), secret } };
  }

  retire(id: string, audit?: AuditInput): SigningKeyView | null {
    const key = this.state(id);
    if (!key) return null;
    if (key.status === "active") {
      const now = new Date().toISOString();
      writeAudited(this.ctx, audit, now, () =>
        this.ctx.sql.exec("UPDATE signing_keys SET status = 'retired', retired_at = ? WHERE id = ?", now, id),
      );
    }
    return this.state(id);
  }

  /** A signing key's state, without its secret (admission checks this). */
  state(id: string): SigningKeyView | null {
    return signingKeyRow(this.ctx.sql, id);
  }

  /** The tenant's signing keys, newest first, without secrets. */
  list(): SigningKeyView[] {
    return signingKeyRows(this.ctx.sql);
  }

  /**
   * The secrets leave the object, unsealed, only to sign deliveries: `secret` is the current one,
   * `secrets` adds the previous one while a rotation's overlap runs.
   */
  async opened(id: string): Promise<(SigningKeyView & { secret: string; secrets: string[] }) | null> {
    const key = await signingSecrets(this.ctx.sql, this.ctx.env.STORAGE_ENCRYPTION_KEY, id);
    return key ? { ...key, secret: key.secrets[0] as string } : null;
  }
}
