import { appendAudit } from "../audit/audit-store";
import { mailSender } from "../mail/sender";
import { activeOwnerMembers } from "../people/members-store";
import type { AccountContext } from "../tenancy/account-context";
import { readTenant } from "../tenancy/tenant-row";
import { recordEvent } from "../webhooks/delivery-rows";
import { apiKeyRow } from "./api-key-rows";
import { type FamilyStanding, familyChain, familySpend, limitedStandings, lineageKeyId } from "./key-family";
import type { KeyLimits } from "./key-limits";
import { markMailed, type PendingAlert, recordCrossings, unmailedAlerts } from "./key-spend";

/** What records, inside a settling write, the alert thresholds it crosses. */
export type AlertRecorder = { record(): void };

/**
 * A key's spend alerts (docs/spend-controls.md): the thresholds a settlement crosses, recorded in
 * its write with their audit entry and `key.spend_threshold` event, then mailed to the owners.
 */
export class SpendAlerts {
  /** Spend alerts whose mail this instance is sending (src/accounts/key-spend.ts). */
  private readonly mailing = new Set<string>();
  /** Set by a write that recorded a webhook event; the alarm that delivers it is set after the write. */
  private eventRecorded = false;

  constructor(private readonly ctx: AccountContext) {}

  /** For a reservation made by a key with a credit limit: its alert recorder; null otherwise. */
  of(reservationId: string, at: string): AlertRecorder | null {
    const row = this.ctx.sql
      .exec<{ key_id: string | null }>("SELECT key_id FROM reservations WHERE task_id = ?", reservationId)
      .toArray()[0];
    return row?.key_id ? this.for(row.key_id, at) : null;
  }

  /** The alerts a settlement of the key's may raise: one per limited lineage of its chain, each on its family's spend. */
  for(keyId: string, at: string): AlertRecorder | null {
    const sql = this.ctx.sql;
    const recorders = limitedStandings(sql, familyChain(sql, keyId), Date.parse(at)).map((s) => this.ofLineage(s, at));
    if (recorders.length === 0) return null;
    return {
      record: () => {
        for (const r of recorders) r.record();
      },
    };
  }

  private ofLineage(before: FamilyStanding, at: string): AlertRecorder {
    const sql = this.ctx.sql;
    const limits = before.limits as KeyLimits;
    return {
      record: () => {
        const keyId = lineageKeyId(sql, before.lineage);
        const after = familySpend(sql, before.lineage, before.window);
        for (const threshold of recordCrossings(
          sql,
          before.lineage,
          limits,
          before.window,
          before.spend.spent,
          after.spent,
          at,
        )) {
          appendAudit(
            sql,
            {
              actor: { type: "api_key", id: keyId },
              action: "api_key.spend_alert",
              target: keyId,
              details: { threshold, limit_credits: limits.credits, period: limits.period, spent_credits: after.spent },
            },
            at,
          );
          recordEvent(sql, "key.spend_threshold", at, {
            object: "key_spend_threshold",
            key_id: keyId,
            threshold,
            limit_credits: limits.credits,
            period: limits.period,
            period_started_at: before.window.started_at,
            period_resets_at: before.window.resets_at,
            spent_credits: after.spent,
          });
          this.eventRecorded = true;
        }
      },
    };
  }

  /**
   * Mails the alerts not mailed yet to the tenant's active owners, after the write that recorded
   * them (so never twice for one crossing). One that cannot be sent now is tried again after the
   * next settlement that records an alert.
   */
  mail(): void {
    const { sql, env } = this.ctx;
    if (this.eventRecorded) {
      this.eventRecorded = false;
      this.ctx.wakeAt(Date.now());
    }
    // An alert whose mail is under way (from an earlier settlement) is not sent again beside it.
    const alertId = (a: PendingAlert) => `${a.key_id} ${a.period_start} ${a.threshold}`;
    const pending = unmailedAlerts(sql).filter((a) => !this.mailing.has(alertId(a)));
    if (pending.length === 0) return;
    for (const a of pending) this.mailing.add(alertId(a));
    const tenant = readTenant(sql);
    const owners = activeOwnerMembers(sql);
    const send = async () => {
      for (const a of pending) {
        // Alerts are recorded per lineage: the key that now stands for it is named.
        const key = apiKeyRow(sql, lineageKeyId(sql, a.key_id));
        const name = key?.name ? `"${key.name}" (${a.key_id})` : a.key_id;
        const limits = key?.limits;
        const per = limits?.period === "total" ? "in total" : `per ${limits?.period ?? "period"}`;
        try {
          for (const o of owners) {
            await mailSender(env).send({
              to: o.email,
              subject: `API key ${key?.name ?? a.key_id} reached ${a.threshold}% of its credit limit`,
              text:
                `The API key ${name} of ${tenant?.name ?? "your tenant"} has spent ${a.threshold}% of its limit of ` +
                `${limits?.credits ?? "?"} credits ${per}` +
                (a.period_start ? ` (period started ${a.period_start}).` : ".") +
                (a.threshold >= 100
                  ? " Requests over the limit are refused until the period resets or the limit is raised."
                  : ""),
            });
          }
          markMailed(sql, a, new Date().toISOString());
        } catch (e) {
          console.error(
            JSON.stringify({ level: "error", message: "spend alert mail failed", key_id: a.key_id, error: String(e) }),
          );
          return;
        }
      }
    };
    this.ctx.waitUntil(
      send().finally(() => {
        for (const a of pending) this.mailing.delete(alertId(a));
      }),
    );
  }
}
