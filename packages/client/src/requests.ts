/**
 * The request log from the client: its pages, one entry with its provider attempts, and a
 * replay, whose answer is whatever the logged call answers (a task, or a chat completion, streamed
 * when the logged call streamed).
 */
import { type ChatChunk, chatStream } from "./chat.js";
import type { CallSpec, Transport } from "./transport.js";
import type { QueryOf, ResultOf, TaskEnvelope } from "./types.js";

export type RequestRef = string | { request_id: string };
export const requestIdOf = (r: RequestRef) => (typeof r === "string" ? r : r.request_id);

export type RequestPage = ResultOf<"listRequests">;
export type RequestLogEntry = RequestPage["data"][number];
export type RequestDetail = ResultOf<"getRequest">;
export type RequestListQuery = Partial<QueryOf<"listRequests">>;

/** What a replay answered, and the new request's id (its log entry names the original as `replay_of`). */
export type ReplayResult =
  | { kind: "task"; task: TaskEnvelope; requestId: string | null }
  | { kind: "chat"; completion: ResultOf<"createChatCompletion">; requestId: string | null }
  | { kind: "chat_stream"; stream: AsyncIterable<ChatChunk>; requestId: string | null };

export async function replayRequest(transport: Transport, request: RequestRef, spec: CallSpec): Promise<ReplayResult> {
  const res = await transport.call("createRequestReplay", {
    ...spec,
    path: { request_id: requestIdOf(request) },
    // A chat call that streamed streams again.
    accept: "application/json, text/event-stream",
  });
  const requestId = res.headers.get("x-request-id");
  if (res.status === 202) return { kind: "task", task: (await res.json()) as TaskEnvelope, requestId };
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream"))
    return { kind: "chat_stream", stream: chatStream(res), requestId };
  return { kind: "chat", completion: (await res.json()) as ResultOf<"createChatCompletion">, requestId };
}

/** Every entry matching the query, newest first, page after page. */
export async function* allRequests(
  list: (query: RequestListQuery) => Promise<RequestPage>,
  query: RequestListQuery,
): AsyncGenerator<RequestLogEntry, void, undefined> {
  let cursor: string | undefined = query.cursor;
  do {
    const page = await list({ ...query, ...(cursor ? { cursor } : {}) });
    yield* page.data;
    cursor = page.has_more ? (page.next_cursor ?? undefined) : undefined;
  } while (cursor);
}
