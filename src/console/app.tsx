/**
 * The tenant console: server-rendered pages (Hono JSX) under `/console`, served by the same Worker
 * as the API. Pages are thin: they read the member (src/console/session.ts), call the same
 * services as the REST and operator doors, and render. The router applies, for every console
 * request: security headers, the session, the body of state-changing requests read once
 * (src/console/form-body.ts), and their cross-site check.
 *
 * Each page file exports `register(app)`; add one line to PAGES to mount a page.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { ApiError } from "../errors/api-error";
import { toBase64Url } from "../lib/base64";
import type { ConsoleEnv } from "./context";
import { register as copyScript } from "./copy-id";
import { csrfProtection } from "./csrf";
import { consoleError } from "./error-page";
import { formBody } from "./form-body";
import { register as audit } from "./pages/audit";
import { register as batches } from "./pages/batches";
import { register as connections } from "./pages/connections";
import { register as credits } from "./pages/credits";
import { register as device } from "./pages/device";
import { register as keys } from "./pages/keys";
import { register as members } from "./pages/members";
import { register as newTask } from "./pages/new-task";
import { register as oauthConsent } from "./pages/oauth-consent";
import { register as overview } from "./pages/overview";
import { register as providerKeys } from "./pages/provider-keys";
import { register as requestDetail } from "./pages/request-detail";
import { register as requestRun } from "./pages/request-run";
import { register as requests } from "./pages/requests";
import { register as settings } from "./pages/settings";
import { register as signIn } from "./pages/sign-in";
import { register as signingKeys } from "./pages/signing-keys";
import { register as status } from "./pages/status";
import { register as storageDestinations } from "./pages/storage-destinations";
import { register as task } from "./pages/task";
import { register as tasks } from "./pages/tasks";
import { register as usage } from "./pages/usage";
import { register as webhooks } from "./pages/webhooks";
import { loadSession } from "./session";
import { register as taskDelivery } from "./task-delivery";

const PAGES: ((app: Hono<ConsoleEnv>) => void)[] = [
  // The Copy buttons' script (src/console/copy-id.tsx), loaded by every page.
  copyScript,
  signIn,
  overview,
  members,
  audit,
  tasks,
  batches,
  // Before the task page, whose /tasks/:id would otherwise take /tasks/new.
  newTask,
  task,
  taskDelivery,
  requests,
  requestDetail,
  requestRun,
  usage,
  status,
  keys,
  signingKeys,
  webhooks,
  providerKeys,
  storageDestinations,
  credits,
  connections,
  device,
  oauthConsent,
  settings,
];

/**
 * Pages are never cached, never framed, and load nothing from elsewhere. Inline styles are
 * allowed; an inline script runs only with this response's nonce (the small progressive
 * enhancements render `nonce={c.get("nonce")}`), so injected markup can run nothing. Forms post
 * only to this origin.
 */
const securityHeaders: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  const nonce = toBase64Url(crypto.getRandomValues(new Uint8Array(18)));
  c.set("nonce", nonce);
  await next();
  const formAction = c.get("formAction");
  c.header("Cache-Control", "no-store");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "same-origin");
  c.header(
    "Content-Security-Policy",
    `default-src 'self'; img-src 'self' data: blob: https:; media-src 'self' blob: https:; style-src 'self' 'unsafe-inline'; script-src 'self' 'nonce-${nonce}'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'${formAction ? ` ${formAction}` : ""}; base-uri 'none'; object-src 'none'`,
  );
};

export const consoleApp = new Hono<ConsoleEnv>();
consoleApp.onError(consoleError);
consoleApp.use("*", securityHeaders);
consoleApp.use("*", loadSession);
consoleApp.use("*", formBody);
consoleApp.use("*", csrfProtection);
for (const page of PAGES) page(consoleApp);
consoleApp.all("*", (c) => {
  throw new ApiError("not_found", `No console page at ${new URL(c.req.url).pathname}.`);
});
