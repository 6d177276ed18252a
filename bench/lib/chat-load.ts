/**
 * The chat benchmark's load: one OpenAI-style chat request (whole or streamed), timed from the
 * caller's side, and blocks of them over N connections with the CPU the subject's own processes
 * spent meanwhile.
 */
import { cpuNs } from "./cpu.ts";

/** Something the benchmark sends chat requests to. */
export interface Subject {
  name: string;
  /** The chat completions URL. */
  url: string;
  headers: Record<string, string>;
  /** The processes whose CPU is the subject's own; null when they cannot be told apart (the fake runs in the bench). */
  pids: number[] | null;
}

/** The same request for every subject: the fake upstream answers it with its default text at once. */
export function chatBody(stream: boolean): string {
  return JSON.stringify({
    model: "deepseek-flash",
    messages: [{ role: "user", content: "Say something short." }],
    max_tokens: 64,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

export interface Answer {
  /** Milliseconds to the end of the answer. */
  total: number;
  /** Milliseconds to the first `data:` event (streams). */
  firstEvent?: number;
  /** The assistant's text, put together from the answer. */
  text: string;
  /** Whether a stream carried a usage event. */
  usage: boolean;
}

/** One request; throws on a status other than 200 or a stream that does not end with [DONE]. */
export async function chat(subject: Subject, stream: boolean): Promise<Answer> {
  const t0 = performance.now();
  const res = await fetch(subject.url, {
    method: "POST",
    headers: { ...subject.headers, "Content-Type": "application/json" },
    body: chatBody(stream),
  });
  if (res.status !== 200 || !res.body) throw new Error(`${subject.name}: HTTP ${res.status} ${await res.text()}`);
  if (!stream) {
    const json = (await res.json()) as { choices?: { message?: { content?: string } }[]; usage?: unknown };
    return { total: performance.now() - t0, text: json.choices?.[0]?.message?.content ?? "", usage: Boolean(json.usage) };
  }
  let firstEvent: number | undefined;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let raw = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    raw += decoder.decode(value, { stream: true });
    if (firstEvent === undefined && raw.includes("data:")) firstEvent = performance.now() - t0;
  }
  const total = performance.now() - t0;
  const events = raw
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trim());
  if (events.at(-1) !== "[DONE]") throw new Error(`${subject.name}: stream without [DONE]: ${raw.slice(-300)}`);
  let text = "";
  let usage = false;
  for (const data of events.slice(0, -1)) {
    const event = JSON.parse(data) as { choices?: { delta?: { content?: string } }[]; usage?: unknown };
    text += event.choices?.[0]?.delta?.content ?? "";
    if (event.usage) usage = true;
  }
  return { total, firstEvent, text, usage };
}

export interface Block {
  /** Requests sent (answered or not). */
  sent: number;
  answers: Answer[];
  errors: number;
  /** Wall time of the block, seconds. */
  seconds: number;
  /** CPU of the subject's processes over the block and the settle after it, ns; null when not measured. */
  cpuNs: number | null;
}

/**
 * Work a subject finishes after its last answer (a write after the response) is its own; it is
 * given this long before the CPU is read again, outside the block's wall time.
 */
const SETTLE_MS = 30;

/** `n` requests over `concurrency` connections. */
export async function block(subject: Subject, stream: boolean, n: number, concurrency: number): Promise<Block> {
  const answers: Answer[] = [];
  let errors = 0;
  let next = 0;
  const before = subject.pids ? cpuNs(subject.pids) : 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) {
        try {
          answers.push(await chat(subject, stream));
        } catch (e) {
          if (errors++ === 0) console.error(String(e).slice(0, 500));
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  if (!subject.pids) return { sent: n, answers, errors, seconds, cpuNs: null };
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  return { sent: n, answers, errors, seconds, cpuNs: cpuNs(subject.pids) - before };
}
