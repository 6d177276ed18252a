/**
 * `media-api chat "<prompt>"`: one chat completion. The conversation is `--messages-file` (a JSON
 * array of messages, `{"messages": […]}`, or JSON lines), then `--system` and the prompt; every
 * other field of the request is a flag (`--model`, `--max-tokens`, `--temperature`, …).
 * `--stream` prints the answer's text as it arrives; `--json` prints the completion (or, streamed,
 * each chunk as a line of JSON).
 */
import { readFile } from "node:fs/promises";
import { OPERATIONS } from "../../generated/operations.js";
import type { OperationRow } from "../../operation-row.js";
import { UsageError } from "../args.js";
import { bodyFromFlags } from "../body.js";
import type { Ctx } from "../context.js";

async function readMessages(path: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new UsageError(`--messages-file ${path}: cannot read the file`);
  }
  const trimmed = text.trim();
  try {
    const parsed = JSON.parse(trimmed) as unknown;
    if (Array.isArray(parsed)) return parsed;
    if (parsed && typeof parsed === "object" && Array.isArray((parsed as { messages?: unknown }).messages))
      return (parsed as { messages: unknown[] }).messages;
    if (parsed && typeof parsed === "object") return [parsed];
  } catch {
    // Not one JSON value: JSON lines, one message a line.
    try {
      return trimmed
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as unknown);
    } catch {
      /* reported below */
    }
  }
  throw new UsageError(`--messages-file ${path}: not a JSON array of messages, {"messages": […]} or JSON lines`);
}

export async function chat(ctx: Ctx): Promise<number> {
  const { opts, io, client, json } = ctx;
  const [prompt, ...extra] = ctx.args;
  if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}' (quote the prompt: media-api chat "…")`);
  const file = opts.string("messages-file");
  const system = opts.string("system");
  const stream = opts.flag("stream");
  const body = await bodyFromFlags(opts, OPERATIONS.createChatCompletion as OperationRow, "chat");
  const messages = [
    ...(file ? await readMessages(file) : Array.isArray(body.messages) ? body.messages : []),
    ...(system ? [{ role: "system", content: system }] : []),
    ...(prompt ? [{ role: "user", content: prompt }] : []),
  ];
  if (messages.length === 0) throw new UsageError('chat needs a prompt (media-api chat "…") or --messages-file <file.json>');
  body.messages = messages;
  if (stream) {
    body.stream = true;
    const chunks = await client.chat.completions.create(
      body as never as Parameters<typeof client.chat.completions.create>[0] & { stream: true },
    );
    let model = "";
    for await (const chunk of chunks) {
      model ||= chunk.model;
      if (json) io.stdout.write(`${JSON.stringify(chunk)}\n`);
      else io.stdout.write(chunk.choices[0]?.delta.content ?? "");
    }
    if (!json) {
      io.stdout.write("\n");
      if (model) io.stderr.write(`model ${model}\n`);
    }
    return 0;
  }
  const completion = await client.chat.completions.create(body as never);
  if (json) {
    io.stdout.write(`${JSON.stringify(completion, null, 2)}\n`);
    return 0;
  }
  const c = completion as unknown as {
    model?: string;
    choices?: { message?: { content?: unknown; tool_calls?: unknown } }[];
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  };
  const message = c.choices?.[0]?.message;
  const content = typeof message?.content === "string" ? message.content : JSON.stringify(message ?? completion, null, 2);
  io.stdout.write(`${content}\n`);
  const tokens = c.usage ? ` · ${c.usage.prompt_tokens ?? "?"} → ${c.usage.completion_tokens ?? "?"} tokens` : "";
  io.stderr.write(`model ${c.model ?? "?"}${tokens}\n`);
  return 0;
}
