/**
 * Mail through an HTTP email API speaking Resend's wire format: `POST <base>/emails` with
 * `Authorization: Bearer <key>` and a JSON body `{from, to: [..], subject, text}`; a 2xx answer
 * (`{"id": …}`) means accepted. An `Idempotency-Key` makes a retried send deliver once.
 */
import { newId } from "../lib/ids";
import { classifyFetchError, httpCause, isTimeout, timedOut } from "../lib/outbound-cause";
import { type MailMessage, type MailSender, sendFailed } from "./message";

export const DEFAULT_EMAIL_API_URL = "https://api.resend.com";
const TIMEOUT_MS = 10_000;

export class HttpMailSender implements MailSender {
  private readonly endpoint: string;

  constructor(private readonly config: { url?: string; key: string; from: string }) {
    this.endpoint = `${(config.url || DEFAULT_EMAIL_API_URL).replace(/\/+$/, "")}/emails`;
  }

  async send(message: MailMessage): Promise<void> {
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${this.config.key}`,
          "Content-Type": "application/json",
          "Idempotency-Key": newId("mail"),
        },
        body: JSON.stringify({ from: this.config.from, to: [message.to], subject: message.subject, text: message.text }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (e) {
      const lost = isTimeout(e) ? timedOut(this.endpoint, TIMEOUT_MS) : await classifyFetchError(e, this.endpoint);
      console.error(JSON.stringify({ level: "error", message: "email API unreachable", cause: lost.cause, error: String(e) }));
      throw sendFailed(`the email API could not be reached: ${lost.words}`, lost.cause);
    }
    // Read the answer either way, so the connection is released.
    const body = await res.text().catch(() => "");
    if (!res.ok) {
      // The provider's words go to the log only: they may name the account or the key.
      console.error(
        JSON.stringify({ level: "error", message: "email API refused a message", status: res.status, body: body.slice(0, 500) }),
      );
      throw sendFailed(`the email API answered ${res.status}`, httpCause(res.status));
    }
  }
}
