/** The batch object's stubs, typed once: the one place a batch stub is cast (src/lib/remote.ts says why). */

import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import type { Remote } from "../lib/remote";
import type { BatchRpc } from "./batch-rpc";
import { BATCH_ID, batchIndexName, batchObjectName } from "./names";

export type BatchStub = Remote<BatchRpc>;

/** The batch object of a public id; null for an id that cannot be one. */
export function batchStubOf(env: Env, batchId: string): BatchStub | null {
  const m = BATCH_ID.exec(batchId);
  if (!m) return null;
  try {
    return env.BATCHES.get(env.BATCHES.idFromString(m[1] as string)) as unknown as BatchStub;
  } catch {
    return null;
  }
}

/** The batch an Idempotency-Key names in a tenant and a key mode. */
export function batchObjectFor(env: Env, tenantId: string, mode: KeyMode, idempotencyKey: string): BatchStub {
  return env.BATCHES.getByName(batchObjectName(tenantId, mode, idempotencyKey)) as unknown as BatchStub;
}

/** The object that lists a tenant's batches of one key mode. */
export function batchIndexOf(env: Env, tenantId: string, mode: KeyMode): BatchStub {
  return env.BATCHES.getByName(batchIndexName(tenantId, mode)) as unknown as BatchStub;
}
