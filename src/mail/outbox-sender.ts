/** Mail "sent" in the local configuration: kept in the outbox and printed, never sent (src/mail/outbox-object.ts). */
import type { Env } from "../env";
import { type MailMessage, type MailSender, sendFailed } from "./message";
import { outboxOf } from "./outbox-stub";

export class OutboxMailSender implements MailSender {
  constructor(private readonly env: Env) {}

  async send(message: MailMessage): Promise<void> {
    const outbox = outboxOf(this.env);
    if (!outbox) throw sendFailed("EMAIL_OUTBOX is on but the OUTBOX binding is missing");
    try {
      await outbox.put(message);
    } catch (e) {
      console.error(JSON.stringify({ level: "error", message: "outbox write failed", error: String(e) }));
      throw sendFailed("the local outbox could not keep the message");
    }
    // One line per message, for the person watching `npm start` (info: its log level hides `log`).
    console.info(`[outbox] mail to ${message.to} | ${message.subject} | ${JSON.stringify(message.text)}`);
  }
}
