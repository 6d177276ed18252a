/**
 * The sandbox Worker: the built-in simulated provider's outputs (images, video, music, speech and
 * their encoders), made in an isolate of their own. The API binds it as `SANDBOX` (a service
 * binding) and calls `render` over RPC; it has no public route and no storage.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { SandboxJob, SandboxOutcome, SandboxService } from "../providers/sandbox-contract";
import { ProviderError } from "../providers/types";
import { render } from "./render";

export default class SandboxWorker extends WorkerEntrypoint implements SandboxService {
  async render(job: SandboxJob): Promise<SandboxOutcome> {
    try {
      return { result: await render(job) };
    } catch (err) {
      // A refusal the simulator makes is the task's error; anything else is a fault of the sandbox.
      if (err instanceof ProviderError) return { error: { code: err.code, message: err.message } };
      throw err;
    }
  }

  /** Not reachable from outside: it answers only its binding. */
  override async fetch(): Promise<Response> {
    return new Response("not found", { status: 404 });
  }
}
