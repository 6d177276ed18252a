import { createApp } from "./app";
import type { Env } from "./env";

export { AccountObject } from "./accounts/account-object";
export { BatchObject } from "./batches/batch-object";
export { DirectoryObject } from "./directory/directory-object";
export { HealthObject } from "./health/health-object";
export { OutboxObject } from "./mail/outbox-object";
export { OAuthObject } from "./oauth/oauth-object";
export { UserObject } from "./people/user-object";
export { RateCounterObject } from "./rate-limits/rate-counter-object";
export { RequestLogObject } from "./request-log/log-object";
export { TaskObject } from "./tasks/task-object";

const app = createApp();

export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
