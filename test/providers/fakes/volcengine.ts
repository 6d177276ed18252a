/** The fake Ark under Volcengine Ark's name: its own key and URL (the server is ./ark/server.ts). */
import { startArk } from "./ark/server";
import type { RunningFake } from "./kit";

export const provider = "volcengine";

export function start(): Promise<RunningFake> {
  return startArk(provider);
}
