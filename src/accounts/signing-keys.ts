/**
 * Callback signing keys: create (the secret shown once), rotate with an overlap, retire. A key's
 * id stays the same across rotations (tasks name it in `callback_signing_key_id`); during the
 * overlap deliveries carry both signatures (src/webhooks/callback-signing.ts). Transport-free.
 */

import { audited } from "../audit/audited";
import { directoryFor } from "../directory/directory-stub";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { tenantNotFound } from "../errors/not-found";
import { newId } from "../lib/ids";
import { type Acting, auditFields, authorize } from "../people/principal";
import { getTenantOr404 } from "../tenancy/account-slice";
import { accountFor } from "./account-stub";
import { GRACE_PERIODS, type Grace } from "./key-rotation";
import { OPERATOR, scopeOf, tenantOfPointer } from "./service";
import type { SigningKeyView } from "./signing-key-rows";
/** How long the previous secret keeps signing after a rotation: the same choices as a key's grace. */
export type Overlap = Grace;
export const DEFAULT_OVERLAP: Overlap = "24h";

function notFound(id: string): ApiError {
  return new ApiError("callback_signing_key_not_found", `Callback signing key ${id} does not exist.`);
}

/** The tenant of a signing key; with `tenantId`, another tenant's key is unknown. */
async function tenantOfSigningKey(env: Env, id: string, tenantId?: string): Promise<string> {
  const owner = await tenantOfPointer(env, `signing-key:${id}`);
  if (!owner || (tenantId !== undefined && owner !== tenantId)) throw notFound(id);
  return owner;
}

export async function createSigningKey(env: Env, tenantId: string, acting: Acting = OPERATOR) {
  authorize(acting.principal, tenantId, "signing_keys:manage");
  await getTenantOr404(env, tenantId);
  const id = newId("whk");
  await directoryFor(env, `signing-key:${id}`).put(`signing-key:${id}`, tenantId);
  const key = await accountFor(env, tenantId).createSigningKey(id, audited(auditFields(acting), "signing_key.create", id));
  if (!key) throw tenantNotFound(tenantId);
  return key;
}

/** Any member may see the tenant's signing keys (never their secrets). */
export async function listSigningKeys(env: Env, tenantId: string, acting: Acting = OPERATOR): Promise<SigningKeyView[]> {
  const scope = scopeOf(acting);
  if (scope !== undefined && scope !== tenantId) throw new ApiError("forbidden", "This tenant is not yours.");
  return accountFor(env, tenantId).signingKeys();
}

export async function rotateSigningKey(
  env: Env,
  id: string,
  overlap: Overlap = DEFAULT_OVERLAP,
  acting: Acting = OPERATOR,
): Promise<SigningKeyView & { secret: string }> {
  const tenantId = await tenantOfSigningKey(env, id, scopeOf(acting));
  authorize(acting.principal, tenantId, "signing_keys:manage");
  const result = await accountFor(env, tenantId).rotateSigningKey(
    id,
    GRACE_PERIODS[overlap],
    audited(auditFields(acting), "signing_key.rotate", id, { overlap }),
  );
  if (result.ok) return result.key;
  if (result.code === "callback_signing_key_not_found") throw notFound(id);
  throw new ApiError("callback_signing_key_inactive", `Callback signing key ${id} is retired; create a new one.`);
}

export async function retireSigningKey(env: Env, id: string, acting: Acting = OPERATOR) {
  const tenantId = await tenantOfSigningKey(env, id, scopeOf(acting));
  authorize(acting.principal, tenantId, "signing_keys:manage");
  const key = await accountFor(env, tenantId).retireSigningKey(id, audited(auditFields(acting), "signing_key.retire", id));
  if (!key) throw notFound(id);
  return key;
}
