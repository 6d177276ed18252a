/** A chat call's upstream calls, as its request log entry lists them (docs/request-log.md, "Attempts"). */
import { ApiError } from "../errors/api-error";
import type { ChatRoute } from "../providers/chat";
import type { AttemptOutcome } from "../request-log/entry";
import { noteAttempt, type RequestNote } from "../request-log/note";

function outcomeOf(error: unknown): AttemptOutcome {
  if (error === null) return "succeeded";
  if (!(error instanceof ApiError)) return "failed";
  if (error.code === "model_timeout") return "timeout";
  if (error.code === "model_rate_limited" || error.status < 500) return "refused";
  return "failed";
}

export function noteChatAttempt(note: RequestNote | undefined, route: ChatRoute, startedAt: number, error: unknown): void {
  const upstreamStatus =
    error instanceof ApiError ? (error.details as { upstream_status?: unknown } | undefined)?.upstream_status : null;
  noteAttempt(note, {
    provider: route.provider,
    upstream_model: route.upstreamModel,
    key: route.key === "tenant" ? "tenant" : "platform",
    started_at: new Date(startedAt).toISOString(),
    duration_ms: Math.max(0, Date.now() - startedAt),
    outcome: outcomeOf(error),
    http_status: error === null ? 200 : typeof upstreamStatus === "number" ? upstreamStatus : null,
    error:
      error === null
        ? null
        : error instanceof ApiError
          ? { code: error.code, message: error.message }
          : { code: "model_request_failed", message: String(error) },
  });
}
