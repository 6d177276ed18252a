/**
 * Content review as a region deploys it (`[env.us]`): fail-closed, and with no moderation
 * provider configured the built-in reviewer still refuses the test term before anything is
 * reserved (a live key here meets no live route first: no upstream is configured in the tests).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expectError, newTenant } from "../helpers/api";
import { createImage, ledger } from "../helpers/tasks";

describe("content review in a region", () => {
  it("fails closed", () => {
    expect(env.SAFETY_FAILURE_MODE).toBe("closed");
  });

  it("refuses the test term with nothing reserved", async () => {
    const t = await newTenant({ mode: "test", credits: "100" });
    const e = expectError(await createImage(t, { prompt: "a sandbox-unsafe-test scene" }), 400, "safety_rejected", "/prompt");
    expect(e.details.recovery).toEqual({ action: "change_input", requires_input_change: true, client_request_id: "new" });
    expect(await ledger(t.tenant_id)).toMatchObject({ balance: "100", reservations: 0 });
  });
});
