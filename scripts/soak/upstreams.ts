/**
 * The fake upstreams the soak's server talks to, all on 127.0.0.1:
 *   fal   the tests' fake fal queue (test/providers/fakes/fal.ts) behind a recording proxy, which
 *         writes every request with the answer it got to the history (the fake itself keeps no
 *         answers). A submission's `fal_webhook` URL names the service's task, so check.ts can
 *         count accepted submissions per task. The proxy rewrites the fake's own address in its
 *         answers, so status reads and output downloads come through it too. Jobs end on their own
 *         3 s after submission and fal's signed webhook goes to the service (retried while it is
 *         down), which is how a task finds a job whose submission answer a crash took.
 *   chat  the tests' fake OpenAI-compatible chat upstream (test/chat/fake-upstream.ts), direct.
 */
import { createServer, type IncomingMessage, request, type Server } from "node:http";
import { FAKE_UPSTREAM_KEY, type FakeUpstream, startFakeUpstream } from "../../test/chat/fake-upstream.ts";
import { bindings as falBindings, start as startFal } from "../../test/providers/fakes/fal.ts";
import { fakeKey, type RunningFake } from "../../test/providers/fakes/kit.ts";
import type { History, UpstreamRecord } from "./history.ts";
import { closeLocal, listenLocal } from "./local-http.ts";

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

const TASK_IN_WEBHOOK = /\/webhooks\/providers\/[a-z0-9-]+\/(task_[0-9a-f]{64})/;

function falKind(method: string, path: string): UpstreamRecord["kind"] {
  if (path.startsWith("/_files/")) return "download";
  const follow = /^\/[^/]+\/[^/]+\/requests\/[^/?]+(\/status|\/cancel)?/.exec(path);
  if (follow) return follow[1] === "/status" ? "status" : follow[1] === "/cancel" ? "cancel" : "result";
  return method === "POST" ? "submit" : "other";
}

/** A pass-through proxy that records every exchange, and rewrites `target` to itself in answers. */
class RecordingProxy {
  private server: Server | null = null;
  url = "";
  /** The upstream's job id → the task that submitted it. */
  private readonly jobs = new Map<string, string>();
  constructor(
    private readonly provider: string,
    private readonly target: string,
    private readonly history: History,
  ) {}

  private holding: ((send: () => void) => void) | null = null;

  /** While true, every submission is refused with 503 in fal's error shape (a provider outage). */
  down = false;

  /**
   * Keeps back the answer of the next submission fal accepts, so that a crash can land between
   * fal taking a job and the service hearing of it. Resolves with the function that hands the
   * answer over (to a service that may be gone by then), or null when none came within `maxWaitMs`.
   */
  holdNextSubmission(maxWaitMs: number): Promise<(() => void) | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.holding = null;
        resolve(null);
      }, maxWaitMs);
      this.holding = (send) => {
        clearTimeout(timer);
        resolve(send);
      };
    });
  }

  async start(): Promise<void> {
    const target = new URL(this.target);
    this.server = createServer((req, res) => {
      void (async () => {
        const at = Date.now();
        const body = await readBody(req);
        const method = req.method ?? "GET";
        const path = req.url ?? "/";
        const kind = falKind(method, path);
        let taskId: string | null = null;
        try {
          const hook = new URL(path, "http://x").searchParams.get("fal_webhook");
          taskId = hook ? (TASK_IN_WEBHOOK.exec(hook)?.[1] ?? null) : null;
        } catch {}
        if (this.down && kind === "submit") {
          this.history.write({
            type: "upstream",
            at,
            provider: this.provider,
            kind,
            method,
            path,
            status: 503,
            task_id: taskId,
            job_id: null,
          });
          res
            .writeHead(503, { "Content-Type": "application/json" })
            .end(JSON.stringify({ detail: "Service temporarily unavailable" }));
          return;
        }
        const jobInPath = /\/requests\/([^/?]+)/.exec(path)?.[1];
        if (!taskId && jobInPath) taskId = this.jobs.get(decodeURIComponent(jobInPath)) ?? null;
        const record = (status: number | null, jobId: string | null, answerLost = false) =>
          this.history.write({
            type: "upstream",
            at,
            provider: this.provider,
            kind,
            method,
            path,
            status,
            task_id: taskId,
            job_id: jobId,
            ...(answerLost ? { answer_lost: true } : {}),
          });
        // The service's process may die before the upstream answers: its connection then closes
        // first, and the answer, when it comes, is recorded as lost (fal still took the job).
        let answered: { status: number | null; jobId: string | null } | null = null;
        let closedFirst = false;
        res.once("close", () => {
          if (answered) record(answered.status, answered.jobId, !res.writableFinished);
          else closedFirst = true;
        });
        const headers = { ...req.headers, host: target.host };
        delete headers["content-length"];
        const upstream = request(
          {
            host: target.hostname,
            port: target.port,
            method,
            path,
            headers: { ...headers, "content-length": String(body.length) },
          },
          (answer) => {
            void readBody(answer).then((raw) => {
              const type = String(answer.headers["content-type"] ?? "");
              let out: Buffer = raw;
              let jobId: string | null = null;
              if (type.includes("json")) {
                const text = raw.toString("utf8").replaceAll(this.target, this.url);
                out = Buffer.from(text, "utf8");
                if (kind === "submit" && (answer.statusCode ?? 0) < 300) {
                  try {
                    jobId = (JSON.parse(text) as { request_id?: string }).request_id ?? null;
                  } catch {}
                  if (jobId && taskId) this.jobs.set(jobId, taskId);
                }
              }
              const outHeaders = { ...answer.headers, "content-length": String(out.length) };
              delete outHeaders["transfer-encoding"];
              // Recorded once the answer is handed over, or known lost with the service's process.
              answered = { status: answer.statusCode ?? null, jobId };
              if (closedFirst) record(answered.status, jobId, true);
              const send = () => {
                if (req.socket.destroyed) res.destroy();
                else res.writeHead(answer.statusCode ?? 502, outHeaders).end(out);
              };
              const hold = kind === "submit" && jobId ? this.holding : null;
              this.holding = hold ? null : this.holding;
              if (hold) hold(send);
              else send();
            });
          },
        );
        upstream.on("error", (e) => {
          answered = { status: null, jobId: null };
          if (closedFirst) record(null, null);
          if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain" }).end(String(e));
        });
        upstream.end(body);
      })();
    });
    this.url = await listenLocal(this.server);
  }

  close(): Promise<void> {
    return closeLocal(this.server);
  }
}

export interface Upstreams {
  /** PROVIDER_* variables for the Worker. */
  vars: Record<string, string>;
  chat: FakeUpstream;
  /** RecordingProxy.holdNextSubmission on the fal proxy. */
  holdNextFalSubmission(maxWaitMs: number): Promise<(() => void) | null>;
  /** Starts or ends an outage of fal: every submission refused with 503 meanwhile. */
  falOutage(down: boolean): void;
  close(): Promise<void>;
}

export async function startUpstreams(history: History): Promise<Upstreams> {
  // fal runs a job on its own and calls its webhook when it ends, even while the service is down.
  const fal: RunningFake = await startFal({ webhooks: { afterMs: 3_000 } });
  const falProxy = new RecordingProxy("fal", fal.url, history);
  await falProxy.start();
  const chat = await startFakeUpstream();
  return {
    vars: {
      PROVIDER_FAL_API_KEY: fakeKey("fal"),
      PROVIDER_FAL_BASE_URL: falProxy.url,
      PROVIDER_FAL_TIMEOUT_MS: "5000",
      ...falBindings(falProxy.url),
      PROVIDER_DEEPSEEK_BASE_URL: `${chat.url}/v1`,
      PROVIDER_DEEPSEEK_API_KEY: FAKE_UPSTREAM_KEY,
      PROVIDER_DEEPSEEK_TIMEOUT_MS: "5000",
    },
    chat,
    holdNextFalSubmission: (maxWaitMs) => falProxy.holdNextSubmission(maxWaitMs),
    falOutage: (down) => {
      falProxy.down = down;
    },
    async close() {
      await falProxy.close();
      await fal.close();
      await chat.close();
    },
  };
}
