/**
 * An upload kept for the tenant's retention: its end is written in the tenant's AccountObject
 * (whose alarm deletes it then, src/retention/upload-expiry.ts) before its bytes are stored, and
 * in the object's metadata, so that every read refuses it from then on.
 */

import type { Env } from "../env";
import { type StoredUpload, storeUpload, type UploadLimits, type UploadSource } from "../media/uploads";
import { accountSlice } from "../tenancy/account-slice";
import type { RetentionAccountSlice } from "./account-slice";
import { expiryAfter } from "./days";
import { callerRetentionDays } from "./settings";

/** Who uploads: the key, its tenant, and the tenant's retention as cached with the key. */
interface Uploader {
  tenant_id: string;
  key_id: string;
  output_retention_days?: number;
}

export async function storeRetainedUpload(
  env: Env,
  source: UploadSource,
  caller: Uploader,
  limits: UploadLimits = {},
): Promise<StoredUpload & { expires_at: string }> {
  const retention = await uploadRetention(env, caller);
  const stored = await storeUpload(env.ARTIFACTS, source, caller, limits, retention);
  return { ...stored, expires_at: retention.expires_at };
}

/** The retention of a new upload by this caller: when it ends, and the write that records it first. */
export async function uploadRetention(
  env: Env,
  caller: Uploader,
): Promise<{ expires_at: string; before_store: (artifactId: string) => Promise<void> }> {
  const days = await callerRetentionDays(env, caller);
  const expiresAt = expiryAfter(Date.now(), days);
  return {
    expires_at: expiresAt,
    before_store: (id) => accountSlice<RetentionAccountSlice>(env, caller.tenant_id).noteUploadExpiry(id, Date.parse(expiresAt)),
  };
}
