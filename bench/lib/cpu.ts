/**
 * CPU time of whole processes from /proc: the sum over every thread of each process (threads that
 * exit take their time with them; the subjects measured keep theirs for their whole life).
 */
import { readdirSync, readFileSync } from "node:fs";
import { descendants } from "../../scripts/lib/local-server.ts";
import { schedstatCpuNs } from "./schedstat.ts";

/** Nanoseconds of CPU the threads of `pid` have run so far (0 once it is gone). */
export function processCpuNs(pid: number): number {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  let total = 0;
  for (const tid of tids) {
    try {
      total += schedstatCpuNs(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8"));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return total;
}

/** Nanoseconds of CPU of all of `pids`. */
export function cpuNs(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + processCpuNs(pid), 0);
}

/** The processes under `root` (itself included) whose command is `name` (e.g. workerd). */
export function processesNamed(root: number, name: string): number[] {
  return [...descendants(root)].filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === name;
    } catch {
      return false;
    }
  });
}
