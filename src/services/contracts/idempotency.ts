/** The Idempotency-Key rule every door applies (src/tasks/idempotency-key.ts). */
export * from "../../tasks/idempotency-key";
