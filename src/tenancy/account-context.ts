import type { Env } from "../env";

/**
 * What the stores of one AccountObject share: its SQLite storage, its bindings, and the object's
 * own means to write atomically, to wake its alarm, and to keep work alive after an answer.
 */
export interface AccountContext {
  readonly sql: SqlStorage;
  readonly env: Env;
  /** One synchronous transaction of the object's storage. */
  transaction<T>(fn: () => T): T;
  /** Sets the alarm for `atMs` unless it is already set earlier. */
  wakeAt(atMs: number): void;
  waitUntil(p: Promise<unknown>): void;
}

/** The arguments of a store method, so that a delegation on the object cannot drift from it. */
export type Args<F> = F extends (...args: infer A) => unknown ? A : never;
