import { env, exports } from "cloudflare:workers";
import OpenAI from "openai";
import { expect } from "vitest";
import { BATCH_WINDOW_MS } from "../../src/chat/charge-batch";
import { dec, fmt } from "../../src/lib/decimal";
import { BASE } from "../helpers/api";
import type { FakeRecord } from "./fake-upstream";

/** The official client, pointed at the Worker's real entry point; its own retries are off. */
export function openai(apiKey: string): OpenAI {
  return new OpenAI({
    apiKey,
    baseURL: `${BASE}/v1`,
    maxRetries: 0,
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
  });
}

let n = 0;
export const uniqueTag = (name: string) => `${name}-${Date.now()}-${n++}`;

/** The `fake` passthrough field that tells the fake upstream how to behave. */
export function fake(tag: string, behaviour: Record<string, unknown> = {}) {
  return { fake: { tag, ...behaviour } } as Record<string, unknown>;
}

export async function fakeRequests(tag: string): Promise<FakeRecord[]> {
  const base = (env.PROVIDER_DEEPSEEK_BASE_URL as string).replace(/\/v1$/, "");
  return (await fetch(`${base}/_fake/requests?tag=${encodeURIComponent(tag)}`)).json();
}

export async function ledger(tenantId: string) {
  return (await env.ACCOUNTS.getByName(tenantId).ledger()) as {
    totals: { granted: string; captured: string; reserved: string };
    recomputed: { granted: string; captured: string; reserved: string };
    balance: string;
    open_reservations: number;
  };
}

/**
 * Totals equal the rows, nothing is left reserved; returns the ledger. A call is settled just
 * after the client has its last byte, so this waits (briefly) for the settlement to land.
 */
/**
 * The ledger once every call has settled: no hold open, and no charge still gathering in an
 * isolate's batch (src/chat/charge-batch.ts), i.e. the same figures twice a few batch windows apart.
 */
export async function expectSettled(tenantId: string) {
  let previous = "";
  const l = await waitUntil(
    async () => {
      await new Promise((r) => setTimeout(r, 3 * BATCH_WINDOW_MS));
      return ledger(tenantId);
    },
    (x) => {
      const seen = JSON.stringify(x.totals);
      const stable = x.open_reservations === 0 && seen === previous;
      previous = seen;
      return stable;
    },
  );
  expect(l.recomputed).toEqual(l.totals);
  expect(l.open_reservations).toBe(0);
  expect(l.totals.reserved).toBe("0");
  return l;
}

export async function waitUntil<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface Prices {
  input: string;
  cache_read: string;
  cache_write?: string;
  output: string;
  reasoning: string;
}

/** The charge for a usage object, worked out independently of the service's code. */
export function expectedCredits(p: Prices, u: OpenAI.CompletionUsage): string {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  const written = (u.prompt_tokens_details as { cache_creation_tokens?: number } | undefined)?.cache_creation_tokens ?? 0;
  const reasoning = u.completion_tokens_details?.reasoning_tokens ?? 0;
  return fmt(
    dec(p.input)
      .times(u.prompt_tokens - cached - written)
      .plus(dec(p.cache_read).times(cached))
      .plus(dec(p.cache_write ?? p.input).times(written))
      .plus(dec(p.output).times(u.completion_tokens - reasoning))
      .plus(dec(p.reasoning).times(reasoning)),
  );
}

export const minus = (a: string, b: string) => fmt(dec(a).minus(b));

/** From catalog-data: deepseek-flash (routed to the fake) and gpt-6-luna (auto's first choice, sandbox). */
export const DEEPSEEK: Prices = { input: "0.00003", cache_read: "0.0000006", output: "0.00012", reasoning: "0.00012" };
export const LUNA: Prices = { input: "0.00001", cache_read: "0.000001", output: "0.00005", reasoning: "0.00005" };
