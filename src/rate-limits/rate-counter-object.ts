import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { RateCounterRpc } from "./rate-counter-rpc";

/**
 * One per API key (named `rate:<key_id>`): the key's admissions per window, summed over the
 * isolates that report them (src/rate-limits/rate-limit.ts). Memory only, nothing stored: it sees
 * one batched report per isolate per second, plus one call per request only near the limit.
 * Sign-in's slower limits (src/people/sign-in-limits.ts) use `takeStored` on objects of their own
 * (named `sign-in:…`), which keep one count per window in storage until the window's end.
 */
const KEEP_AT_LEAST_MS = 60 * 60 * 1000;

export class RateCounterObject extends DurableObject<Env> implements RateCounterRpc {
  private readonly windows = new Map<number, number>();

  private bump(window: number, n: number): number {
    // Only the current window and the one before matter; anything older is gone.
    for (const w of this.windows.keys()) if (w < window - 1) this.windows.delete(w);
    const total = (this.windows.get(window) ?? 0) + n;
    this.windows.set(window, total);
    return total;
  }

  async take(window: number, report: number, limit: number): Promise<{ allowed: boolean; total: number }> {
    const total = this.bump(window, report);
    if (total + 1 > limit) return { allowed: false, total };
    return { allowed: true, total: this.bump(window, 1) };
  }

  async add(window: number, report: number): Promise<number> {
    return this.bump(window, report);
  }

  /**
   * Counts one event in a long window (sign-in code requests per address or client: minutes, not
   * seconds) that must survive the object's restarts, so these counts are stored: one value per
   * window, the older ones dropped. Refused, and not counted, once `limit` is reached.
   * `expireAt` (ms) is when the count stops mattering (its window's end, a form token's last day):
   * the object's alarm then (an hour from now at the soonest) deletes everything it stored, so no
   * object keeps storage for good.
   */
  async takeStored(window: number, limit: number, expireAt?: number): Promise<{ allowed: boolean; total: number }> {
    const key = `window:${window}`;
    const total = (await this.ctx.storage.get<number>(key)) ?? 0;
    if (total >= limit) return { allowed: false, total };
    await this.ctx.storage.put(key, total + 1);
    const older = [...(await this.ctx.storage.list({ prefix: "window:" })).keys()].filter((k) => k !== key);
    if (older.length) await this.ctx.storage.delete(older);
    if (expireAt !== undefined) {
      // Kept an hour at least: the caller's clock (it names the window) may differ from this object's.
      const at = Math.max(expireAt, Date.now() + KEEP_AT_LEAST_MS);
      // The latest end wins: a count of a later window outlives an earlier one's end.
      const set = await this.ctx.storage.getAlarm();
      if (set === null || set < at) await this.ctx.storage.setAlarm(at);
    }
    return { allowed: true, total: total + 1 };
  }

  /** Every stored count has ended (takeStored's `expireAt`): the object keeps nothing. */
  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
