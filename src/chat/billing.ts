/**
 * Credits of one chat call on the tenant's ledger, settled after the client has its last byte.
 *
 * When this isolate cannot tell that the balance covers the call — the first call of a tenant
 * here, or a balance, as last heard (at most BALANCE_VIEW_MS ago), that does not cover twice the
 * estimate on top of this isolate's other calls in flight — a hold is awaited before the upstream
 * call (402 when refused), then settled once: capture of what was used, or release. Holds carry a
 * lease (CHAT_LEASE_MS): one whose isolate died before settling is given back by the account's alarm.
 *
 * Otherwise nothing is held: the call goes upstream at once and is charged once, after the last
 * byte, as far as the balance then goes (one write instead of two). The ledger never goes
 * negative, and what the service may absorb is bounded by the estimates admitted on a view at
 * most BALANCE_VIEW_MS old (docs/scaling.md). A call whose isolate dies is not charged, as a hold
 * given back by its lease would not be.
 */

import { accountFor } from "../accounts/account-stub";
import { keySpendLimitError } from "../accounts/key-refusals";
import type { ReserveRefusal } from "../accounts/ledger-answers";
import { CHAT_CAPABILITY, type UsageCounters, type UsageNote } from "../accounts/usage";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import type { KeyMode } from "../keys/api-keys";
import { dec, fmt } from "../lib/decimal";
import { randomToken } from "../lib/ids";
import { chargeInBatch } from "./charge-batch";

export interface ChatCharge {
  readonly reservationId: string;
  readonly reserved: string;
  /** Settles when the hold is in place; rejects with insufficient_balance or tenant_disabled. */
  readonly held: Promise<void>;
  /**
   * Charges `amount` for a completion that used `counters`; returns what was charged. Later calls
   * return the first outcome.
   */
  capture(amount: string, counters: UsageCounters): Promise<string>;
  /** What `capture(amount)` charges when the hold stands, known without asking the account. */
  expectedCharge(amount: string): string | null;
  /** Gives everything back, unless already settled. */
  release(): Promise<void>;
}

const ATTEMPTS = 3;
/** How long a balance heard from the account is trusted for admitting alongside the upstream call. */
export const BALANCE_VIEW_MS = 5_000;
/** A chat hold not settled within this time is given back by the account (its isolate died). */
export const CHAT_LEASE_MS = 15 * 60_000;

/**
 * Per isolate: each tenant's balance as last heard, and the estimates of its calls in flight here
 * (plain numbers: the view only decides whether a call may skip the hold, with a margin of twice
 * its estimate; the ledger's own arithmetic stays exact).
 */
const views = new Map<string, { balance: number; at: number; inFlight: number }>();
const VIEWS_MAX = 10_000;

function view(tenantId: string) {
  let v = views.get(tenantId);
  if (!v) {
    if (views.size >= VIEWS_MAX) views.clear();
    v = { balance: 0, at: 0, inFlight: 0 };
    views.set(tenantId, v);
  }
  return v;
}

function heard(tenantId: string, balance: string) {
  const v = view(tenantId);
  v.balance = Number(balance);
  v.at = Date.now();
}

/** Ledger calls are idempotent per reservation, so a failed call is simply repeated. */
async function settleWithRetries<T>(run: () => Promise<T>): Promise<T> {
  let last: unknown;
  for (let i = 0; i < ATTEMPTS; i++) {
    try {
      return await run();
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, 50 * 2 ** i));
    }
  }
  throw new ApiError("billing_failed", "The charge for this completion could not be recorded.", {
    details: { reason: String(last) },
  });
}

type Account = ReturnType<typeof accountFor>;

/** Which key's mode and which model a call's charges are reported under (`GET /v1/usage`). */
export interface ChatLabel {
  mode: KeyMode;
  model: string;
  /** The calling key: its charges count against its credit limit. */
  key_id?: string;
  /** The key has a credit limit: every call is held first, so that no pattern of calls passes it. */
  limited?: boolean;
}

/**
 * The usage row of a call's charge. Only the entry that counts the completion carries its
 * counters; a charge beyond the hold adds credits to it and is not counted again.
 */
function chatNote(label: ChatLabel, counted: boolean, counters: UsageCounters = {}): UsageNote {
  return {
    mode: label.mode,
    kind: "completion",
    capability: CHAT_CAPABILITY,
    model: label.model,
    outcome: "succeeded",
    counted,
    counters: counted ? counters : {},
  };
}

/** Charges `amount` under its own ledger entry, as far as the balance goes (never below zero). */
async function chargeAsFarAsBalance(
  account: Account,
  id: string,
  amount: string,
  usage: UsageNote,
  keyId: string | undefined,
  requestId: string,
): Promise<string> {
  const opts = { ...(keyId ? { key_id: keyId } : {}), request_id: requestId };
  let keyRemaining: string | null = null;
  let held = await settleWithRetries(async () => {
    const r = await account.reserve(id, amount, opts);
    if (!r.ok && r.code === "key_spend_limit") keyRemaining = r.remaining;
    return r.ok ? r.settlement : null;
  });
  if (!held) {
    let balance = dec((await account.get())?.balance ?? "0");
    // As far as the key's limit goes, too.
    if (keyRemaining !== null && balance.gt(keyRemaining)) balance = dec(keyRemaining);
    if (balance.lte(0)) return "0";
    held = await settleWithRetries(async () => {
      const r = await account.reserve(id, fmt(balance.lt(amount) ? balance : dec(amount)), opts);
      return r.ok ? r.settlement : null;
    });
    if (!held) return "0";
  }
  const captured = await settleWithRetries(() => account.capture(id, held.reserved, usage));
  return captured?.captured ?? "0";
}

function refusal(result: ReserveRefusal): ApiError {
  if (result.code === "tenant_disabled") return new ApiError("tenant_disabled", "The tenant of this key is disabled.");
  if (result.code === "key_spend_limit")
    return keySpendLimitError(result.required, result.remaining, result.resets_at, result.limited_by);
  return new ApiError(
    "insufficient_balance",
    `This request may cost up to ${result.required} credits; the balance is ${result.balance}.`,
    { details: { required_credits: result.required, balance_credits: result.balance } },
  );
}

/** 402 before anything is sent upstream when the balance is known not to cover the estimate. */
export async function reserveChat(
  env: Env,
  tenantId: string,
  requestId: string,
  amount: string,
  label: ChatLabel,
): Promise<ChatCharge> {
  const reservationId = `chat_${requestId}_${randomToken(8)}`;
  const v = view(tenantId);
  const estimate = Number(amount);
  // A key with a credit limit is always held: its limit is enforced where the hold is taken.
  const covered = !label.limited && Date.now() - v.at < BALANCE_VIEW_MS && v.balance - v.inFlight - 2 * estimate >= 0;
  v.inFlight += estimate;
  if (covered) return unheldCharge(env, tenantId, reservationId, requestId, amount, label);
  // A stub costs a hash of the name: made only on the path that holds.
  const account = accountFor(env, tenantId);
  let standing: boolean | null = null;
  const held = (async () => {
    try {
      const result = await account.reserve(reservationId, amount, {
        lease_ms: CHAT_LEASE_MS,
        ...(label.key_id ? { key_id: label.key_id } : {}),
        request_id: requestId,
      });
      heard(tenantId, result.balance);
      if (!result.ok) {
        standing = false;
        throw refusal(result);
      }
      standing = true;
    } catch (e) {
      standing ??= false;
      throw e;
    } finally {
      v.inFlight -= estimate;
    }
  })();
  held.catch(() => {});
  if (!covered) await held;

  let outcome: Promise<string> | null = null;
  const charge: ChatCharge = {
    reservationId,
    reserved: fmt(dec(amount)),
    held,
    expectedCharge(used) {
      return standing !== false && dec(used).lte(amount) ? fmt(dec(used)) : null;
    },
    capture(used, counters) {
      outcome ??= (async () => {
        const stood = await held.then(
          () => true,
          () => false,
        );
        const counted = chatNote(label, true, counters);
        if (!stood) return chargeAsFarAsBalance(account, `${reservationId}_unheld`, used, counted, label.key_id, requestId);
        const excess = dec(used).minus(amount);
        const kept = await settleWithRetries(() => account.capture(reservationId, excess.gt(0) ? amount : used, counted));
        // A hold whose lease ran out (a very long call) was given back: charge anew.
        if (kept?.status === "released")
          return chargeAsFarAsBalance(account, `${reservationId}_late`, used, counted, label.key_id, requestId);
        if (!excess.gt(0)) return kept?.captured ?? "0";
        const extra = await chargeAsFarAsBalance(
          account,
          `${reservationId}_excess`,
          fmt(excess),
          chatNote(label, false),
          label.key_id,
          requestId,
        );
        return fmt(dec(kept?.captured ?? "0").plus(extra));
      })();
      return outcome;
    },
    async release() {
      outcome ??= held.then(
        () => settleWithRetries(() => account.release(reservationId)).then(() => "0"),
        () => "0",
      );
      await outcome;
    },
  };
  return charge;
}

/**
 * A call admitted on a balance known to cover it: nothing held, one charge after the last byte,
 * written with the other calls this isolate settles at about the same time (src/chat/charge-batch.ts).
 */
function unheldCharge(
  env: Env,
  tenantId: string,
  reservationId: string,
  requestId: string,
  amount: string,
  label: ChatLabel,
): ChatCharge {
  const v = view(tenantId);
  let inFlight = true;
  const done = () => {
    if (inFlight) v.inFlight -= Number(amount);
    inFlight = false;
  };
  let outcome: Promise<string> | null = null;
  return {
    reservationId,
    reserved: fmt(dec(amount)),
    held: Promise.resolve(),
    expectedCharge(used) {
      return dec(used).lte(amount) ? fmt(dec(used)) : null;
    },
    capture(used, counters) {
      const amount = fmt(dec(used));
      outcome ??= chargeInBatch(
        tenantId,
        { id: reservationId, amount, usage: chatNote(label, true, counters), key_id: label.key_id, request_id: requestId },
        (items) => settleWithRetries(() => accountFor(env, tenantId).chargeBatch(items)),
        (result) => {
          if (result) heard(tenantId, result.balance);
          else logUncharged(reservationId, amount);
          done();
        },
      ).then(() => amount);
      return outcome;
    },
    async release() {
      done();
      outcome ??= Promise.resolve("0");
      await outcome;
    },
  };
}

/** A charge that could not be written after its retries: the call goes unbilled, loudly. */
function logUncharged(id: string, amount: string) {
  console.error(JSON.stringify({ level: "error", charge_id: id, message: `chat charge of ${amount} credits was not recorded` }));
}
