/**
 * Callback receivers on 127.0.0.1, one HTTP server with a path per receiver and tenant:
 *   POST /hook/<receiver>/<tenant>
 * Each receiver answers as its policy says (history.ts ReceiverPolicy), counted per `webhook-id`:
 *   ok     200
 *   flaky  500 for the first `times` deliveries of a message, then 200
 *   slow   the first delivery of a message is held `hold_ms` (past the service's 15 s timeout), then 200
 *   gone   410 (delivery must stop)
 * Every delivery is verified with the tenant's Standard Webhooks secret when signed, and written
 * to the history with the answer given (and whether the service was still there to read it).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { Webhook } from "standardwebhooks";
import type { History, ReceiverPolicy } from "./history.ts";
import { closeLocal, listenLocal } from "./local-http.ts";

export const RECEIVERS: Record<string, ReceiverPolicy> = {
  ok: { mode: "ok" },
  flaky: { mode: "flaky", times: 1 },
  slow: { mode: "slow", hold_ms: 17_000 },
  gone: { mode: "gone" },
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export class Receivers {
  private server: Server | null = null;
  private readonly seen = new Map<string, number>();
  /** Tenant name → its signing secret (whsec_…). */
  readonly secrets = new Map<string, string>();
  url = "";
  deliveries = 0;

  constructor(private readonly history: History) {}

  urlFor(receiver: string, tenant: string): string {
    return `${this.url}/hook/${receiver}/${tenant}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void (async () => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        const [hook, receiver = "", tenant = ""] = url.pathname.split("/").filter(Boolean);
        const policy = RECEIVERS[receiver];
        if (req.method !== "POST" || hook !== "hook" || !policy) {
          res.writeHead(404).end();
          return;
        }
        const at = Date.now();
        const body = await readBody(req);
        this.deliveries++;
        const header = (n: string) => {
          const v = req.headers[n];
          return typeof v === "string" ? v : null;
        };
        const webhookId = header("webhook-id");
        const nth = (this.seen.get(`${receiver}/${webhookId}`) ?? 0) + 1;
        this.seen.set(`${receiver}/${webhookId}`, nth);
        let envelope: { task_id?: string; status?: string } = {};
        try {
          envelope = JSON.parse(body);
        } catch {}
        let signature: "valid" | "invalid" | "unsigned" = "unsigned";
        if (header("webhook-signature")) {
          const secret = this.secrets.get(tenant);
          try {
            if (!secret) throw new Error("no secret");
            new Webhook(secret).verify(body, {
              "webhook-id": webhookId ?? "",
              "webhook-timestamp": header("webhook-timestamp") ?? "",
              "webhook-signature": header("webhook-signature") ?? "",
            });
            signature = "valid";
          } catch {
            signature = "invalid";
          }
        }
        let answered = 200;
        if (policy.mode === "flaky" && nth <= (policy.times ?? 1)) answered = 500;
        if (policy.mode === "gone") answered = 410;
        if (policy.mode === "slow" && nth === 1) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, policy.hold_ms ?? 17_000);
            res.once("close", () => {
              clearTimeout(timer);
              resolve();
            });
          });
        }
        const aborted = res.destroyed || req.socket.destroyed;
        if (!aborted) res.writeHead(answered, { "Content-Type": "text/plain" }).end(answered < 300 ? "ok" : "no");
        this.history.write({
          type: "callback",
          at,
          receiver,
          tenant,
          task_id: envelope.task_id ?? null,
          webhook_id: webhookId,
          task_status: envelope.status ?? null,
          answered,
          aborted,
          signature,
          nth,
        });
      })().catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    this.url = await listenLocal(this.server);
  }

  close(): Promise<void> {
    return closeLocal(this.server);
  }
}
