/**
 * The one way the service sends mail (sign-in codes, invitations). Which sender a deployment has
 * is configuration: the outbox locally (EMAIL_OUTBOX), an HTTP email API in the regions
 * (EMAIL_API_URL, EMAIL_API_KEY, EMAIL_FROM). What a send promises is in ./message.ts.
 */
import type { Env } from "../env";
import { HttpMailSender } from "./http-sender";
import { type MailSender, sendFailed } from "./message";
import { OutboxMailSender } from "./outbox-sender";

export const NOT_CONFIGURED = "no email API is configured: set EMAIL_API_KEY and EMAIL_FROM";

/** Whether this deployment has a way to send mail at all. */
export function mailConfigured(env: Env): boolean {
  return env.EMAIL_OUTBOX === "true" || !!(env.EMAIL_API_KEY && env.EMAIL_FROM);
}

/** The sender this deployment is configured with. */
export function mailSender(env: Env): MailSender {
  if (env.EMAIL_OUTBOX === "true") return new OutboxMailSender(env);
  if (env.EMAIL_API_KEY && env.EMAIL_FROM) {
    return new HttpMailSender({ url: env.EMAIL_API_URL, key: env.EMAIL_API_KEY, from: env.EMAIL_FROM });
  }
  return {
    async send() {
      throw sendFailed(NOT_CONFIGURED);
    },
  };
}
