/** The typed client of the media generation API. */

export type { ChatChunk } from "./chat.js";
export {
  CREATE_METHODS,
  type CreateOptions,
  type GetTaskOptions,
  MediaClient,
  OTHER_METHODS,
  operationForCapability,
  type ReplayOptions,
} from "./client.js";
export type { DownloadResult, SavedFile } from "./download.js";
export { type ErrorObject, MediaApiError, MediaConnectionError, MediaTimeoutError } from "./errors.js";
export type { components, operations, paths } from "./generated/openapi.js";
export { OPERATIONS, type OperationId } from "./generated/operations.js";
export { extensionFor, sniffMediaType } from "./media-types.js";
export type {
  ReplayResult,
  RequestDetail,
  RequestListQuery,
  RequestLogEntry,
  RequestPage,
  RequestRef,
} from "./requests.js";
export { DEFAULT_RETRY, parseRetryAfter } from "./retry.js";
export { parseEventStream, type ServerSentEvent } from "./sse.js";
export { type ClientOptions, DEFAULT_BASE_URL, type FetchLike, type RequestOptions } from "./transport.js";
export {
  type ArtifactRef,
  type BodyOf,
  isTerminal,
  type OutputArtifact,
  outputArtifacts,
  type PathOf,
  type QueryOf,
  type ResultOf,
  type TaskEnvelope,
  type TaskEvent,
  type TaskUpdate,
} from "./types.js";
export type { UploadData, UploadOptions } from "./uploads.js";
export { EventStreamUnavailable, type EventsOptions, type WaitOptions } from "./wait.js";
export {
  type VerifiedWebhook,
  type VerifyOptions,
  verifyWebhook,
  WEBHOOK_TOLERANCE_SECONDS,
  type WebhookHeaders,
  WebhookVerificationError,
} from "./webhooks.js";
