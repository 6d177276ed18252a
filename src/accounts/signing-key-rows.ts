/**
 * The `signing_keys` rows of an AccountObject: callback signing secrets, sealed at rest, and the
 * overlap of a rotation (the previous secret, kept until `previous_until`, signs beside the new).
 */
import { seal, unseal } from "../lib/sealed";
import { newSigningSecret } from "../webhooks/callback-signing";

export type SigningKeyView = {
  id: string;
  status: "active" | "retired";
  created_at: string;
  retired_at: string | null;
  /** When the secret was last replaced. */
  rotated_at: string | null;
  /** While a rotation's overlap runs: until when the previous secret still signs; else null. */
  previous_valid_until: string | null;
};

type Row = {
  id: string;
  status: "active" | "retired";
  created_at: string;
  retired_at: string | null;
  rotated_at: string | null;
  previous_until: string | null;
};

const COLUMNS = "id, status, created_at, retired_at, rotated_at, previous_until";

function view(r: Row, nowMs: number): SigningKeyView {
  const overlapping = r.previous_until !== null && Date.parse(r.previous_until) > nowMs;
  return {
    id: r.id,
    status: r.status,
    created_at: r.created_at,
    retired_at: r.retired_at,
    rotated_at: r.rotated_at,
    previous_valid_until: overlapping ? r.previous_until : null,
  };
}

export function signingKeyRow(sql: SqlStorage, id: string, nowMs = Date.now()): SigningKeyView | null {
  const r = sql.exec<Row>(`SELECT ${COLUMNS} FROM signing_keys WHERE id = ?`, id).toArray()[0];
  return r ? view(r, nowMs) : null;
}

export function signingKeyRows(sql: SqlStorage, nowMs = Date.now()): SigningKeyView[] {
  return sql
    .exec<Row>(`SELECT ${COLUMNS} FROM signing_keys ORDER BY created_at DESC, id DESC`)
    .toArray()
    .map((r) => view(r, nowMs));
}

/**
 * The secrets a delivery signs with, newest first: the current one, and the previous one while
 * the overlap runs. Sealed values are bound to the row id, so a secret moved to `previous` opens
 * as it did.
 */
export async function signingSecrets(
  sql: SqlStorage,
  encryptionKey: string | undefined,
  id: string,
  nowMs = Date.now(),
): Promise<(SigningKeyView & { secrets: string[] }) | null> {
  const r = sql
    .exec<Row & { secret_sealed: string; previous_secret_sealed: string | null }>(
      `SELECT ${COLUMNS}, secret_sealed, previous_secret_sealed FROM signing_keys WHERE id = ?`,
      id,
    )
    .toArray()[0];
  if (!r) return null;
  const v = view(r, nowMs);
  const secrets = [await unseal(encryptionKey, r.secret_sealed, id)];
  if (v.previous_valid_until !== null && r.previous_secret_sealed) {
    secrets.push(await unseal(encryptionKey, r.previous_secret_sealed, id));
  }
  return { ...v, secrets };
}

/**
 * Seals a fresh secret for an existing active key; `write` (synchronous, after the await) moves
 * the current secret to `previous` until `previousUntil` (null: no overlap) and installs the new.
 */
export async function prepareRotation(encryptionKey: string | undefined, id: string) {
  const secret = newSigningSecret();
  return { secret, sealed: await seal(encryptionKey, secret, id) };
}

export function writeRotation(
  sql: SqlStorage,
  id: string,
  sealed: string,
  rotatedAt: string,
  previousUntil: string | null,
): void {
  sql.exec(
    `UPDATE signing_keys SET previous_secret_sealed = ${previousUntil === null ? "NULL" : "secret_sealed"},
       previous_until = ?, secret_sealed = ?, rotated_at = ? WHERE id = ?`,
    previousUntil,
    sealed,
    rotatedAt,
    id,
  );
}

export type SigningKeyRotation =
  | { ok: true; key: SigningKeyView & { secret: string } }
  | { ok: false; code: "callback_signing_key_not_found" | "callback_signing_key_inactive" };
