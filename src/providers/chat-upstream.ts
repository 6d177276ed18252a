/**
 * The one interface a chat upstream implements. Chat is synchronous: one call, answered with a
 * whole completion or a stream of chunks. `complete` resolves once the upstream has answered
 * (its first byte); everything before that (retries included) is the adapter's business, and
 * failures are thrown as ApiError in the public vocabulary, before or during the stream.
 */
export interface ChatUpstreamRequest {
  /** The client's body with `model` set to the upstream's name; unknown fields included. */
  body: Record<string, unknown>;
  stream: boolean;
  /** The output budget the service reserved for; the sandbox stops there. */
  maxCompletionTokens: number;
  requestId: string;
}

/** A `chat.completion` or `chat.completion.chunk` object as the upstream sent it. */
export type ChatObject = Record<string | symbol, any>;

/**
 * On a chunk, the upstream's own JSON text of it, when the object is exactly that text parsed:
 * the relay may then forward it with its id and model edited in place, rather than rebuilt and
 * serialized again. Symbol-keyed, so it never reaches any JSON.
 */
export const RAW_EVENT: unique symbol = Symbol("raw event");

/**
 * A stream yields chunks one by one, or several at once (all that one read of the upstream's body
 * brought), which the service then forwards together.
 */
export type ChatUpstreamResult =
  | { stream: false; completion: ChatObject }
  | { stream: true; chunks: AsyncIterator<ChatObject | ChatObject[]> };

export interface ChatUpstream {
  readonly name: string;
  complete(req: ChatUpstreamRequest, signal: AbortSignal): Promise<ChatUpstreamResult>;
}
