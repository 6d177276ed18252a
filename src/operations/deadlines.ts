export { deadlineSeconds } from "../catalog/default-deadlines";

/** The longest `deadline_seconds` a create may set: a task holds its credits until then at most. */
export const MAX_DEADLINE_SECONDS = 3 * 3600;
