/**
 * Where a batch lives and what its items are called. A batch object is named by its tenant, key
 * mode and Idempotency-Key, so a retried creation lands on the same batch; its public id is
 * derived from the object's id. Each item's task gets an Idempotency-Key derived from the batch's
 * key and the item's `custom_id`, so a retried start (or a resumed batch) reaches the same task.
 */

import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import { taskObjectName } from "../keys/scope";
import { sha256Hex } from "../lib/crypto";

export const BATCH_ID = /^batch_([0-9a-f]{64})$/;

export function batchObjectName(tenantId: string, mode: KeyMode, idempotencyKey: string): string {
  return `batch:${mode}:${tenantId}:${idempotencyKey}`;
}

/** The object that lists a tenant's batches of one key mode. */
export function batchIndexName(tenantId: string, mode: KeyMode): string {
  return `index:${mode}:${tenantId}`;
}

export function batchIdOf(id: DurableObjectId): string {
  return `batch_${id.toString()}`;
}

const PRINTABLE = /^[\x21-\x7e]+$/;

/**
 * The Idempotency-Key of an item's task: `batch-<digest of the batch's key>-<custom_id>`, the
 * custom_id hashed too when it is not printable ASCII (an Idempotency-Key must be). At most 99 characters.
 */
export async function itemIdempotencyKey(batchKey: string, customId: string): Promise<string> {
  const batch = (await sha256Hex(`batch:${batchKey}`)).slice(0, 32);
  const item = PRINTABLE.test(customId) ? customId : `h${(await sha256Hex(customId)).slice(0, 40)}`;
  return `batch-${batch}-${item}`;
}

/** The task id an item's task has (or will have): derived from its object's name, as every task's is. */
export function itemTaskId(env: Env, tenantId: string, mode: KeyMode, itemKey: string): string {
  return `task_${env.TASKS.idFromName(taskObjectName(tenantId, mode, itemKey)).toString()}`;
}
