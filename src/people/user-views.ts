/** What a person's UserObject answers: plain data, so callers need not import the object. */

export type UserView = {
  user_id: string;
  email: string;
  created_at: string;
  last_sign_in_at: string | null;
};

export type UserTenant = {
  tenant_id: string;
  tenant_name: string;
};

/** What a typed code came to. */
export type CodeCheck =
  | { ok: true }
  | { ok: false; reason: "wrong"; attempts_left: number }
  | { ok: false; reason: "expired" | "too_many_attempts" | "no_code" };

export interface SessionView {
  session_id: string;
  user_id: string;
  email: string;
  tenant_id: string | null;
  created_at: number;
  /** The absolute end (ms since the epoch). */
  expires_at: number;
  /** When it ends unless used before (ms since the epoch). */
  idle_expires_at: number;
}
