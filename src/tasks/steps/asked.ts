/** Whether a job asked for its failure: a drill's failures are the request's, not its route's. */

import type { ProviderAdapter, ProviderContext } from "../../providers/adapter";
import type { ProviderJob } from "../../providers/types";

/** Whether the job asked to fail (a drill its provider honours). */
export function askedFailure(adapter: ProviderAdapter, job: ProviderJob, ctx: ProviderContext): boolean {
  return adapter.requestedFailure?.(job, ctx) === true;
}
