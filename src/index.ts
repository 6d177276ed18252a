import { createApp } from "./http/app";

export { AccountObject } from "./accounts/account-object";
export { DirectoryObject } from "./accounts/directory-object";
export { TaskObject } from "./tasks/task-object";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<import("./env").Env>;
