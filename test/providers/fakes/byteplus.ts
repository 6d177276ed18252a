/** The fake Ark under BytePlus ModelArk's name: its own key and URL (the server is ./ark/server.ts). */
import { startArk } from "./ark/server";
import type { RunningFake } from "./kit";

export const provider = "byteplus";

export function start(): Promise<RunningFake> {
  return startArk(provider);
}
