/**
 * Credits of one chat call on the tenant's ledger: a reservation before the upstream is called,
 * then exactly one settlement — capture of what was used, or release of everything.
 */
import type { Settlement } from "../accounts/account-object";
import { accountFor } from "../accounts/service";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { dec, fmt } from "../lib/decimal";
import { randomToken } from "../lib/ids";

export interface ChatCharge {
  readonly reservationId: string;
  readonly reserved: string;
  /** Charges `amount`; returns what was charged. Later calls return the first outcome. */
  capture(amount: string): Promise<string>;
  /** Gives everything back, unless already settled. */
  release(): Promise<void>;
}

const ATTEMPTS = 3;

/** Ledger calls are idempotent per reservation, so a failed call is simply repeated. */
async function settleWithRetries(run: () => Promise<Settlement | null>): Promise<Settlement | null> {
  let last: unknown;
  for (let i = 0; i < ATTEMPTS; i++) {
    try {
      return await run();
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, 50 * 2 ** i));
    }
  }
  throw new ApiError("billing_failed", "The charge for this completion could not be recorded; retry the request.", {
    details: { reason: String(last) },
  });
}

type Account = ReturnType<typeof accountFor>;

/**
 * The reservation is an estimate (the prompt's tokens are guessed from its characters), so the
 * usage can come to more. The excess is charged under its own ledger entry, as far as the
 * balance goes, rather than silently dropped.
 */
async function chargeExcess(account: Account, id: string, excess: string): Promise<string> {
  let held = await settleWithRetries(async () => {
    const r = await account.reserve(id, excess);
    return r.ok ? r.settlement : null;
  });
  if (!held) {
    const balance = dec((await account.get())?.balance ?? "0");
    if (balance.lte(0)) return "0";
    held = await settleWithRetries(async () => {
      const r = await account.reserve(id, fmt(balance.lt(excess) ? balance : dec(excess)));
      return r.ok ? r.settlement : null;
    });
    if (!held) return "0";
  }
  const captured = await settleWithRetries(() => account.capture(id, held.reserved));
  return captured?.captured ?? "0";
}

/** 402 before anything is sent upstream when the balance cannot cover the estimate. */
export async function reserveChat(env: Env, tenantId: string, requestId: string, amount: string): Promise<ChatCharge> {
  const account = accountFor(env, tenantId);
  const reservationId = `chat_${requestId}_${randomToken(8)}`;
  const result = await account.reserve(reservationId, amount);
  if (!result.ok) {
    if (result.code === "tenant_disabled") throw new ApiError("tenant_disabled", "The tenant of this key is disabled.");
    throw new ApiError(
      "insufficient_balance",
      `This request may cost up to ${result.required} credits; the balance is ${result.balance}.`,
      {
        details: { required_credits: result.required, balance_credits: result.balance },
      },
    );
  }
  let outcome: Promise<string> | null = null;
  const reserved = result.settlement.reserved;
  return {
    reservationId,
    reserved,
    capture(amount) {
      outcome ??= (async () => {
        const excess = dec(amount).minus(reserved);
        const kept = await settleWithRetries(() => account.capture(reservationId, excess.gt(0) ? reserved : amount));
        if (!excess.gt(0)) return kept?.captured ?? "0";
        const extra = await chargeExcess(account, `${reservationId}_excess`, fmt(excess));
        return fmt(dec(kept?.captured ?? "0").plus(extra));
      })();
      return outcome;
    },
    async release() {
      outcome ??= settleWithRetries(() => account.release(reservationId)).then(() => "0");
      await outcome;
    },
  };
}
