/**
 * The Worker as the soak runs it: the service itself, with the crash drills on (its traffic asks
 * for them with `metadata.drill_crash_after`). Only the soak's `wrangler dev` loads this entry;
 * the service's own entry (src/index.ts) never installs the hook.
 */
import { setFaultHook } from "../../src/tasks/faults";
import { drillFromMetadata } from "../../test/helpers/metadata-drill";

export * from "../../src/index";
export { default } from "../../src/index";

setFaultHook(drillFromMetadata);
