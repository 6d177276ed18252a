/**
 * The tenant audit log as the doors reach it: who acted, and the log's pages.
 */
export { listAudit } from "../audit/audit";
export type { AuditActor } from "../audit/audit-store";
