/**
 * What an API key resolves to, kept per isolate so that a request does not visit the tenant's
 * account object in the steady state. Bounded in size and in time:
 *  - an entry older than REFRESH_AFTER_MS is still used, and re-read in the background;
 *  - an entry older than MAX_AGE_MS is never used: the request waits for a fresh read.
 * So a revocation, a disable or a permission change made anywhere is seen by every isolate
 * within MAX_AGE_MS (docs/scaling.md). Refusals are cached the same way, which also keeps a
 * flood of bad keys away from the account object. A rotated key's end (`expires_at`) is part of
 * its resolution and checked on every request (`usable`), so a cached answer never outlives it.
 */
import { KNOWLEDGE_MAX_AGE_MS } from "../tenancy/tenant-features";
import type { KeyResolution } from "./api-key-answers";

export const MAX_AGE_MS = KNOWLEDGE_MAX_AGE_MS;
export const REFRESH_AFTER_MS = 2_000;
export const MAX_ENTRIES = 10_000;

interface Entry {
  value: KeyResolution;
  readAt: number;
  refreshing: Promise<KeyResolution> | null;
}

export class KeyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxAgeMs = MAX_AGE_MS,
    private readonly refreshAfterMs = REFRESH_AFTER_MS,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /**
   * The key's resolution: cached when young enough, else read with `load`. `background` keeps a
   * refresh running after the response (the Worker's waitUntil).
   */
  async resolve(
    hash: string,
    load: () => Promise<KeyResolution>,
    background: (p: Promise<unknown>) => void,
  ): Promise<KeyResolution> {
    const at = this.now();
    const entry = this.entries.get(hash);
    if (entry && at - entry.readAt < this.maxAgeMs) {
      if (at - entry.readAt >= this.refreshAfterMs && !entry.refreshing) {
        entry.refreshing = this.read(hash, load);
        background(entry.refreshing.catch(() => {}));
      }
      return entry.value;
    }
    // Concurrent requests for a stale key share one read.
    if (entry?.refreshing) return entry.refreshing;
    return this.read(hash, load);
  }

  private async read(hash: string, load: () => Promise<KeyResolution>): Promise<KeyResolution> {
    const existing = this.entries.get(hash);
    const pending = load();
    if (existing) existing.refreshing = pending;
    try {
      const value = await pending;
      this.entries.delete(hash); // re-inserted last: Map order is least recently read first
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
      this.entries.set(hash, { value, readAt: this.now(), refreshing: null });
      return value;
    } catch (e) {
      if (existing) existing.refreshing = null;
      throw e;
    }
  }

  /** Drops what this cache holds for a key (changed by this isolate: revoked, rotated, re-permitted, enabled). */
  forgetKey(keyId: string): void {
    for (const [hash, entry] of this.entries) {
      if (entry.value.key_id === keyId) this.entries.delete(hash);
    }
  }

  /** Drops what this cache holds for every key of a tenant (a tenant setting they carry changed here). */
  forgetTenant(tenantId: string): void {
    for (const [hash, entry] of this.entries) {
      if (entry.value.ok && entry.value.tenant_id === tenantId) this.entries.delete(hash);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/** A resolution the request may use now: a valid key whose rotation's grace period (if any) has not ended. */
export function usable(r: KeyResolution, nowMs: number): boolean {
  return r.ok && (r.expires_at == null || nowMs < r.expires_at);
}
