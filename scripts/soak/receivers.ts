/**
 * Callback receivers on 127.0.0.1, one HTTP server with a path per receiver and tenant:
 *   POST /hook/<receiver>/<tenant>
 * Each receiver answers as its policy says (history.ts ReceiverPolicy), counted per `webhook-id`:
 *   ok     200
 *   flaky  500 for the first `times` deliveries of a message, then 200
 *   slow   the first delivery of a message is held `hold_ms` (past the service's 15 s timeout), then 200
 *   gone   410 (delivery must stop)
 * and the tenants' webhook endpoints:
 *   POST /events/<tenant>   503 for the first delivery of one message in four (by its webhook-id), else 200
 * Every delivery is verified with the tenant's Standard Webhooks secret when signed, and written
 * to the history with the answer given (and whether the service was still there to read it).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
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
  /** Tenant name → its webhook endpoint's secret. */
  readonly endpointSecrets = new Map<string, string>();
  url = "";
  deliveries = 0;
  events = 0;

  constructor(private readonly history: History) {}

  urlFor(receiver: string, tenant: string): string {
    return `${this.url}/hook/${receiver}/${tenant}`;
  }

  endpointUrl(tenant: string): string {
    return `${this.url}/events/${tenant}`;
  }

  private verify(secret: string | undefined, body: string, header: (n: string) => string | null) {
    if (!header("webhook-signature")) return "unsigned" as const;
    try {
      if (!secret) throw new Error("no secret");
      new Webhook(secret).verify(body, {
        "webhook-id": header("webhook-id") ?? "",
        "webhook-timestamp": header("webhook-timestamp") ?? "",
        "webhook-signature": header("webhook-signature") ?? "",
      });
      return "valid" as const;
    } catch {
      return "invalid" as const;
    }
  }

  /** An endpoint's event: verified with the endpoint's secret, one message in four refused once. */
  private async event(req: IncomingMessage, res: ServerResponse, tenant: string): Promise<void> {
    const at = Date.now();
    const body = await readBody(req);
    this.events++;
    const header = (n: string) => {
      const v = req.headers[n];
      return typeof v === "string" ? v : null;
    };
    const webhookId = header("webhook-id");
    const nth = (this.seen.get(`events/${webhookId}`) ?? 0) + 1;
    this.seen.set(`events/${webhookId}`, nth);
    let event: { type?: string; data?: { task_id?: string; status?: string } } = {};
    try {
      event = JSON.parse(body);
    } catch {}
    const refuse = nth === 1 && (webhookId ?? "").charCodeAt((webhookId ?? "").length - 1) % 4 === 0;
    const answered = refuse ? 503 : 200;
    if (!res.destroyed) res.writeHead(answered, { "Content-Type": "text/plain" }).end(refuse ? "busy" : "ok");
    this.history.write({
      type: "event",
      at,
      tenant,
      webhook_id: webhookId,
      event_type: event.type ?? null,
      task_id: event.data?.task_id ?? null,
      task_status: event.data?.status ?? null,
      answered,
      aborted: res.destroyed && !res.writableFinished,
      signature: this.verify(this.endpointSecrets.get(tenant), body, header),
      nth,
    });
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void (async () => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        const [hook, receiver = "", tenant = ""] = url.pathname.split("/").filter(Boolean);
        if (req.method === "POST" && hook === "events") {
          await this.event(req, res, receiver);
          return;
        }
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
        const signature = this.verify(this.secrets.get(tenant), body, header);
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
