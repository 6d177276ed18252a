/** A request log entry as GET /v1/requests answers it, for the client and CLI tests. */
export function entry(id: string, extra: Record<string, unknown> = {}) {
  return {
    object: "request",
    request_id: id,
    created_at: "2026-11-26T10:00:00.000Z",
    method: "POST",
    route: "POST /v1/images/generations",
    status: 202,
    error_code: null,
    duration_ms: 41,
    key_id: "key_1",
    mode: "live",
    door: "rest",
    model: "flux-2-pro",
    task_id: "task_1",
    batch_id: null,
    credits: { charged: "4", settled: true },
    user_agent: "curl/8",
    replay_of: null,
    ...extra,
  };
}
