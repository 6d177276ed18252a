/**
 * The least work each benchmarked request can do on this runtime, with no gateway logic:
 *   GET  /healthz               a JSON answer (the bare route)
 *   GET  /read                  one RPC to an existing Durable Object that returns its stored row
 *   POST /seed                  stores the body as that row
 *   POST /create                a new Durable Object per request: one table, one row, one alarm
 *   POST /v1/chat/completions   the request forwarded to UPSTREAM and the answer streamed back
 * bench/run.ts and bench/chat-overhead.ts measure it in the same run as the service, so a target
 * can be read against what the runtime itself allows on the machine.
 */
import { DurableObject } from "cloudflare:workers";

interface Env {
  ITEMS: DurableObjectNamespace<Item>;
  UPSTREAM?: string;
}

export class Item extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL)");
  }

  async create(body: string): Promise<{ id: string }> {
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO item (id, body) VALUES (1, ?)", body);
    await this.ctx.storage.setAlarm(Date.now() + 3_600_000);
    return { id: this.ctx.id.toString() };
  }

  read(): string | null {
    return this.ctx.storage.sql.exec<{ body: string }>("SELECT body FROM item WHERE id = 1").toArray()[0]?.body ?? null;
  }

  override async alarm(): Promise<void> {}
}

let created = 0;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return Response.json({ status: "ok" });
    if (url.pathname === "/read") {
      const body = await env.ITEMS.getByName("read").read();
      return new Response(body ?? "{}", { headers: { "Content-Type": "application/json" } });
    }
    if (url.pathname === "/seed" && request.method === "POST") {
      return Response.json(await env.ITEMS.getByName("read").create(await request.text()));
    }
    if (url.pathname === "/create" && request.method === "POST") {
      const body = await request.text();
      const item = env.ITEMS.getByName(`create-${Date.now()}-${created++}-${Math.random()}`);
      return Response.json(await item.create(body), { status: 202 });
    }
    if (url.pathname === "/v1/chat/completions" && env.UPSTREAM) {
      const upstream = await fetch(`${env.UPSTREAM}/chat/completions`, {
        method: "POST",
        headers: { Authorization: request.headers.get("Authorization") ?? "", "Content-Type": "application/json" },
        body: request.body,
      });
      return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
    }
    return new Response("not found", { status: 404 });
  },
};
