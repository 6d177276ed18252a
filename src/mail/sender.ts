/**
 * The one way the service sends mail (sign-in codes, invitations). Which sender a deployment has
 * is configuration: the outbox locally (EMAIL_OUTBOX), an HTTP email API in the regions
 * (EMAIL_API_URL, EMAIL_API_KEY, EMAIL_FROM). A send that does not go through throws
 * `email_send_failed` (502, retryable); callers undo what the mail was for.
 */
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { HttpMailSender } from "./http-sender";
import { OutboxMailSender } from "./outbox";

export type MailMessage = {
  to: string;
  subject: string;
  text: string;
};

export interface MailSender {
  /** Resolves once the message is accepted; throws ApiError `email_send_failed` otherwise. */
  send(message: MailMessage): Promise<void>;
}

export function sendFailed(reason: string): ApiError {
  return new ApiError("email_send_failed", `The email could not be sent (${reason}); retry in a moment.`);
}

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
