import { createApp } from "./http/app";

export { AccountObject } from "./accounts/account-object";
export { DirectoryObject } from "./accounts/directory-object";
export { RateCounterObject } from "./accounts/rate-counter-object";
export { OutboxObject } from "./mail/outbox";
export { OAuthObject } from "./oauth/oauth-object";
export { UserObject } from "./people/user-object";
export { TaskObject } from "./tasks/task-object";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<import("./env").Env>;
