/**
 * A deployment with `REQUEST_LOG_RECORDING = "off"` keeps no request metadata: its doors record no
 * entry, and its account objects neither wake for the log nor tell it what they settled, so no entry
 * is rebuilt from the ledger either (docs/request-log.md, "Turning it off").
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { forwardSettlements, nextForwardAt, wakeForLog } from "../../src/accounts/log-forward";
import type { Env } from "../../src/env";
import { call, newTenant } from "../helpers/api";

const off = { ...env, REQUEST_LOG_RECORDING: "off" } as Env;

describe("request log recording off", () => {
  it("wakes no account for the log, and forwards nothing it settled", async () => {
    const t = await newTenant({ permissions: ["chat", "logs:read"] });
    const res = await call("/v1/chat/completions", {
      key: t.api_key,
      body: { model: "gpt-6-luna", messages: [{ role: "user", content: "off the record" }], max_tokens: 20 },
    });
    expect(res.status, res.text).toBe(200);
    // The charge is written in a batch a moment after the answer.
    let pending = false;
    for (let i = 0; i < 100 && !pending; i++) {
      await new Promise((r) => setTimeout(r, 20));
      pending = await runInDurableObject(env.ACCOUNTS.getByName(t.tenant_id), async (_o, state) => {
        // Keep the object's own alarm from forwarding while this test looks.
        await state.storage.deleteAlarm();
        return nextForwardAt({ sql: state.storage.sql, env: env as Env }, Date.now()) !== null;
      });
    }
    // Recording on, the settled charge is waiting to be told to the log; off, it is not.
    expect(pending).toBe(true);
    await runInDurableObject(env.ACCOUNTS.getByName(t.tenant_id), async (_o, state) => {
      const sql = state.storage.sql;
      expect(nextForwardAt({ sql, env: off }, Date.now())).toBeNull();
      await forwardSettlements({ sql, env: off });
      expect(sql.exec("SELECT COUNT(*) AS n FROM log_forward").one().n).toBe(0);
      // The forwarding that recording on does moves the cursor: the check above can fail.
      await forwardSettlements({ sql, env: env as Env });
      expect(sql.exec("SELECT COUNT(*) AS n FROM log_forward").one().n).toBe(1);
    });
  });

  it("sets no alarm on a settlement", () => {
    const woken: number[] = [];
    wakeForLog({ env: off, wakeAt: (at) => woken.push(at) }, 1_000);
    expect(woken).toEqual([]);
    wakeForLog({ env: env as Env, wakeAt: (at) => woken.push(at) }, 1_000);
    expect(woken).toEqual([2_000]);
  });
});
