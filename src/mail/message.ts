/**
 * What every sender shares: the message, the sender's one method, and the error a send that does
 * not go through throws (`email_send_failed`, 502, retryable; callers undo what the mail was for).
 */
import { ApiError } from "../errors/api-error";
import type { OutboundCause } from "../lib/outbound-cause";

export type MailMessage = {
  to: string;
  subject: string;
  text: string;
};

export interface MailSender {
  /** Resolves once the message is accepted; throws ApiError `email_send_failed` otherwise. */
  send(message: MailMessage): Promise<void>;
}

/** `cause`: the kind of failure when the email API was called (src/lib/outbound-cause.ts), as `details.cause`. */
export function sendFailed(reason: string, cause?: OutboundCause): ApiError {
  return new ApiError("email_send_failed", `The email could not be sent (${reason}); retry in a moment.`, {
    ...(cause ? { details: { cause } } : {}),
  });
}

export type OutboxMessage = MailMessage & {
  id: string;
  created_at: string;
};
