/**
 * The chat benchmark's figures per cell (JSON or stream × connections) and subject, its tables and
 * its targets, and the JSON the README's table is made from.
 */

import { percentile } from "../../scripts/lib/local-server.ts";
import type { Block } from "./chat-load.ts";
import { cpuMsPerRequest } from "./schedstat.ts";

export interface Cell {
  kind: "json" | "stream";
  concurrency: number;
}

export const cellName = (c: Cell) =>
  `${c.kind === "json" ? "JSON" : "stream"}, ${c.concurrency} connection${c.concurrency > 1 ? "s" : ""}`;

export interface Figures {
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  /** Over the direct subject's p50 and p99 in the same cell. */
  addedP50: number;
  addedP99: number;
  rps: number;
  /** Time to the first streamed event, p50 (streams). */
  firstEventP50: number | null;
  cpuMsPerRequest: number | null;
}

/** The figures of one cell from each subject's blocks; `direct` is the subject the others are compared to. */
export function figures(blocks: Record<string, Block[]>, direct: string): Record<string, Figures> {
  const raw = Object.fromEntries(
    Object.entries(blocks).map(([name, bs]) => {
      const answers = bs.flatMap((b) => b.answers);
      const totals = answers.map((a) => a.total).sort((a, b) => a - b);
      const firsts = answers
        .map((a) => a.firstEvent)
        .filter((t): t is number => t !== undefined)
        .sort((a, b) => a - b);
      const cpu = bs.every((b) => b.cpuNs !== null) ? bs.reduce((s, b) => s + (b.cpuNs as number), 0) : null;
      const requests = answers.length;
      const sent = bs.reduce((s, b) => s + b.sent, 0);
      return [
        name,
        {
          requests,
          errors: bs.reduce((s, b) => s + b.errors, 0),
          p50: percentile(totals, 50),
          p99: percentile(totals, 99),
          rps: requests / bs.reduce((s, b) => s + b.seconds, 0),
          firstEventP50: firsts.length ? percentile(firsts, 50) : null,
          // Every request sent costs CPU, answered or not.
          cpuMsPerRequest: cpu === null || sent === 0 ? null : cpuMsPerRequest(0, cpu, sent),
        },
      ];
    }),
  );
  const base = raw[direct]!;
  return Object.fromEntries(
    Object.entries(raw).map(([name, f]) => [name, { ...f, addedP50: f.p50 - base.p50, addedP99: f.p99 - base.p99 }]),
  );
}

/** A figure, or n/a where there is none (no CPU of direct's own, no answers, no streamed events). */
const num = (x: number | null | undefined, digits = 2) => (typeof x !== "number" || Number.isNaN(x) ? "n/a" : x.toFixed(digits));

export function printCell(cell: Cell, figs: Record<string, Figures>): void {
  console.log(`\n${cellName(cell)} (milliseconds)`);
  const head = ["p50", "p99", "added p50", "added p99", "req/s", "1st event p50", "CPU/req", "errors"];
  console.log(`${"".padEnd(10)}${head.map((h) => h.padStart(14)).join("")}`);
  for (const [name, f] of Object.entries(figs)) {
    const cells = [
      num(f.p50),
      num(f.p99),
      name === "direct" ? "" : num(f.addedP50),
      name === "direct" ? "" : num(f.addedP99),
      num(f.rps, 0),
      num(f.firstEventP50),
      num(f.cpuMsPerRequest, 3),
      String(f.errors),
    ];
    console.log(`${name.padEnd(10)}${cells.map((c) => c.padStart(14)).join("")}`);
  }
}

export interface Target {
  name: string;
  /** What was measured and what it is held to, in words. */
  detail: string;
  pass: boolean;
}

/** The targets of the service against Portkey and the reference, from the figures of every cell. */
export function targets(all: Record<string, Record<string, Figures>>): Target[] {
  const out: Target[] = [];
  const fig = (cell: string, subject: string) => all[cell]?.[subject];
  // At 16 connections: CPU per call at most this share of Portkey's, requests/s at least this multiple.
  const limits = { json: { cpu: 0.7, rps: 1.2 }, stream: { cpu: 0.85, rps: 1.2 } } as const;
  for (const kind of ["json", "stream"] as const) {
    const cell = cellName({ kind, concurrency: 16 });
    const s = fig(cell, "service");
    const p = fig(cell, "portkey");
    if (!s || !p) continue;
    const { cpu: maxCpu, rps: minRps } = limits[kind];
    const cpu = (s.cpuMsPerRequest ?? Number.NaN) / (p.cpuMsPerRequest ?? Number.NaN);
    out.push({
      name: `${cell}: service CPU/req ≤ ${maxCpu}× Portkey's`,
      detail: `${num(s.cpuMsPerRequest, 3)} ms vs ${num(p.cpuMsPerRequest, 3)} ms = ${num(cpu)}×`,
      pass: cpu <= maxCpu,
    });
    const rps = s.rps / p.rps;
    out.push({
      name: `${cell}: service req/s ≥ ${minRps}× Portkey's`,
      detail: `${num(s.rps, 0)} vs ${num(p.rps, 0)} = ${num(rps)}×`,
      pass: rps >= minRps,
    });
  }
  // The request log costs a chat call at most 10 % of its CPU: the service against itself with the log off.
  for (const kind of ["json", "stream"] as const) {
    const cell = cellName({ kind, concurrency: 16 });
    const on = fig(cell, "service");
    const off = fig(cell, "service-log-off");
    if (!on || !off) continue;
    const ratio = (on.cpuMsPerRequest ?? Number.NaN) / (off.cpuMsPerRequest ?? Number.NaN);
    out.push({
      name: `${cell}: service CPU/req with the request log ≤ 1.1× with it off`,
      detail: `${num(on.cpuMsPerRequest, 3)} ms vs ${num(off.cpuMsPerRequest, 3)} ms = ${num(ratio)}×`,
      pass: ratio <= 1.1,
    });
  }
  const json1 = cellName({ kind: "json", concurrency: 1 });
  const s1 = fig(json1, "service");
  const r1 = fig(json1, "reference");
  if (s1 && r1) {
    out.push({
      name: `${json1}: service added p50 ≤ the reference forward's + 0.3 ms`,
      detail: `${num(s1.addedP50)} ms vs ${num(r1.addedP50)} + 0.3 ms`,
      pass: s1.addedP50 <= r1.addedP50 + 0.3,
    });
  }
  const stream1 = cellName({ kind: "stream", concurrency: 1 });
  const ss = fig(stream1, "service");
  const rs = fig(stream1, "reference");
  if (ss?.firstEventP50 != null && rs?.firstEventP50 != null) {
    out.push({
      name: `${stream1}: service first event p50 ≤ reference's + 1 ms`,
      detail: `${num(ss.firstEventP50)} ms vs ${num(rs.firstEventP50)} + 1 ms`,
      pass: ss.firstEventP50 <= rs.firstEventP50 + 1,
    });
  }
  return out;
}

export function printTargets(list: Target[]): void {
  console.log("\ntargets");
  for (const t of list) console.log(`  ${t.pass ? "pass" : "FAIL"}  ${t.name}: ${t.detail}`);
}
