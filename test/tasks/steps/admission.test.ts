/** The admission step as a plain function: the record committed once the account holds the credits. */
import { describe, expect, it } from "vitest";
import { admissionRecord, reservationName } from "../../../src/tasks/steps/admission";
import { kinds, plan, T0 } from "./task";

describe("admission record", () => {
  it("is queued on its first route, holds the reservation, and logs the reserve with the hold's name", () => {
    const step = admissionRecord(plan(), {
      task_id: "task_a",
      message_id: "msg_a",
      reservation: { task_id: "task_a:0123456789abcdef:2", reserved: "40" },
      now: T0,
    });
    expect(kinds(step)).toEqual(["save", "event:reserve"]);
    expect(step.wait).toBe(false);
    expect(step.rec).toMatchObject({
      task_id: "task_a",
      status: "queued",
      step: "submit",
      route_index: 0,
      route: { provider: "first" },
      reservation_id: "task_a:0123456789abcdef:2",
      billing: { reserved: "40", captured: "0", refunded: "0", settled: false },
      callback: { status: "pending", attempt_count: 0, message_id: "msg_a", next_attempt_at: null },
      created_at: "2026-01-01T00:00:00.000Z",
      deadline_at: "2026-01-01T00:10:00.000Z",
    });
    expect(step.effects[1]).toEqual({
      type: "event",
      kind: "reserve",
      detail: { amount: "40", reservation_id: "task_a:0123456789abcdef:2" },
    });
  });

  it("has no callback state when the request named none", () => {
    const step = admissionRecord(plan({ callback: null }), {
      task_id: "t",
      message_id: "m",
      reservation: { task_id: "t:1", reserved: "0" },
      now: T0,
    });
    expect(step.rec.callback).toBeNull();
  });

  it("names each generation of the hold by the task and the body, so only a retry of the same body adopts it", () => {
    const hash = "ffeeddccbbaa99887766554433221100ffee";
    expect(reservationName("task_x", hash, 1)).toBe("task_x:ffeeddccbbaa9988:1");
    expect(reservationName("task_x", hash, 2)).not.toBe(reservationName("task_x", hash, 1));
    expect(reservationName("task_x", `0${hash}`, 1)).not.toBe(reservationName("task_x", hash, 1));
  });
});
