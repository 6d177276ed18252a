/** A Gemini event stream as OpenAI `chat.completion.chunk` objects, one candidate's deltas at a time. */
import { ApiError } from "../../errors/api-error";
import { timedOut } from "../chat-errors";
import type { ChatObject } from "../chat-upstream";
import { IdleTimeout } from "../openai-compatible/sse";
import { blocked, chatId, finishReasonOf, fromGoogleError, partsOf, toolCall, usageOf } from "./chat-answer";
import type { Json } from "./gemini-json";

interface CandidateState {
  started: boolean;
  calls: number;
  finished: boolean;
}

export async function* chunksOf(
  events: AsyncIterable<string> | Iterable<string>,
  model: string,
  timeoutSeconds: number,
  secret: string,
): AsyncGenerator<ChatObject> {
  const states = new Map<number, CandidateState>();
  let usage: Json | undefined;
  let id: string | undefined;
  const created = Math.floor(Date.now() / 1000);
  try {
    for await (const data of events) {
      let event: Json;
      try {
        event = JSON.parse(data) as Json;
      } catch {
        throw new ApiError("model_request_failed", "The model sent a stream event that is not JSON.");
      }
      if (event?.error) throw fromGoogleError(event.error, secret);
      const refused = blocked(event);
      if (refused) throw refused;
      id ??= chatId(event);
      if (event.usageMetadata) usage = event.usageMetadata;
      const candidates: Json[] = Array.isArray(event.candidates) ? event.candidates : [];
      for (const [i, c] of candidates.entries()) {
        const index = typeof c.index === "number" ? c.index : i;
        const state = states.get(index) ?? { started: false, calls: 0, finished: false };
        states.set(index, state);
        const parts = partsOf(c).filter((p) => p.thought !== true);
        const text = parts.map((p) => (typeof p.text === "string" ? p.text : "")).join("");
        const calls = parts.filter((p) => p.functionCall && typeof p.functionCall === "object");
        const delta: Json = {};
        if (!state.started) delta.role = "assistant";
        if (text) delta.content = text;
        if (calls.length > 0) {
          delta.tool_calls = calls.map((p) => ({ index: state.calls++, ...toolCall(p) }));
        }
        const finish = finishReasonOf(c.finishReason, state.calls > 0);
        if (text || calls.length > 0 || (!state.started && finish)) {
          state.started = true;
          yield {
            id,
            object: "chat.completion.chunk",
            created,
            model,
            choices: [{ index, delta, logprobs: null, finish_reason: null }],
          };
        }
        if (finish && !state.finished) {
          state.finished = true;
          // A content_filter finish is forwarded: the relay turns it into content_filtered.
          yield {
            id,
            object: "chat.completion.chunk",
            created,
            model,
            choices: [{ index, delta: {}, logprobs: null, finish_reason: finish }],
          };
        }
      }
    }
  } catch (e) {
    if (e instanceof IdleTimeout) throw timedOut(timeoutSeconds);
    if (e instanceof ApiError) throw e;
    throw new ApiError("model_request_failed", "The connection to the model broke while it was streaming.");
  }
  if (states.size === 0 || [...states.values()].some((s) => !s.finished)) {
    throw new ApiError("model_request_failed", "The model's stream ended before the answer was finished.");
  }
  // Without Google's count the relay estimates from what was delivered.
  if (usage) yield { id, object: "chat.completion.chunk", created, model, choices: [], usage: usageOf(usage) };
}
