/**
 * The operations a task can run (the catalog of task kinds and their input fields).
 */
export { OPERATIONS } from "../operations/index";
export type { OperationSpec } from "../operations/types";
