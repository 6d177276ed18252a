/**
 * Tool results: the structured answer (the same JSON as the REST route's body) plus a few lines
 * of text for the model, and a task's outputs as `resource_link` items pointing at their signed
 * URLs, which any client can fetch without a key until they expire.
 */
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/server";
import { clause } from "../errors/sentence";
import type { Envelope, StoredOutput } from "../services/tasks";

/** An output artifact as the envelope shows it (signed where the deployment can sign). */
type ArtifactView = StoredOutput & { signed_url?: string; signed_url_expires_at?: string };

/** An absolute URI: links are relative where the deployment has no PUBLIC_BASE_URL (local). */
function absolute(url: string, origin: string): string {
  try {
    return new URL(url, origin).toString();
  } catch {
    return url;
  }
}

function artifactsOf(envelope: Envelope): ArtifactView[] {
  const output = envelope.output as { artifacts?: ArtifactView[] } | null;
  return Array.isArray(output?.artifacts) ? output.artifacts : [];
}

const linked = (envelope: Envelope) => artifactsOf(envelope).filter((a) => a.signed_url ?? a.url);

function describe(a: ArtifactView): string {
  const parts = [a.content_type];
  if (a.width && a.height) parts.push(`${a.width}x${a.height}`);
  if (a.duration_seconds !== undefined) parts.push(`${a.duration_seconds} s`);
  parts.push(`${a.bytes} bytes`);
  const access = a.signed_url
    ? `signed link, no key needed${a.signed_url_expires_at ? `, valid until ${a.signed_url_expires_at}` : ""}`
    : "needs the API key";
  return `${parts.join(", ")} (${access})`;
}

/** Each output of a task as a link to its bytes (the signed URL where the deployment can sign). */
export function outputLinks(envelope: Envelope, origin: string): ContentBlock[] {
  // A deleted or expired output has no URL left to link.
  return linked(envelope).map((a) => ({
    type: "resource_link" as const,
    uri: absolute((a.signed_url ?? a.url) as string, origin),
    name: `${envelope.task_id}-${a.index}`,
    title: `Output ${a.index + 1} of ${envelope.task_id}`,
    mimeType: a.content_type,
    size: a.bytes,
    description: describe(a),
  }));
}

/** One line on where a task stands, and what to do next. */
export function taskSummary(envelope: Envelope): string {
  const what = `Task ${envelope.task_id} (${envelope.capability} on ${envelope.resolved_model})`;
  switch (envelope.status) {
    case "queued":
    case "running": {
      const p = envelope.progress;
      return `${what} is ${envelope.status}: ${p.percent}%, ${clause(p.message)}. Call wait_for_task with this task_id to wait for it (up to 30 s a call), or get_task to check on it.`;
    }
    case "succeeded": {
      const n = linked(envelope).length;
      if (n === 0 && artifactsOf(envelope).length > 0) return `${what} succeeded; its outputs were deleted (expired).`;
      return n > 0 ? `${what} succeeded with ${n} output${n === 1 ? "" : "s"}, linked below.` : `${what} succeeded.`;
    }
    case "failed": {
      const e = envelope.error;
      return `${what} failed${e ? `: ${e.code}: ${e.message}` : "."}`;
    }
    case "canceled":
      return `${what} was canceled.`;
  }
}

/**
 * With a `models` list: the model serving (or that served) and each listed model passed over,
 * and why; nothing for a task made with `model`.
 */
export function fallbackSummary(envelope: Envelope): string | undefined {
  if (!envelope.models?.length) return undefined;
  const serving = TERMINAL_STATUSES.has(envelope.status) ? "served" : "is serving";
  const passed = (envelope.model_fallbacks ?? []).map(
    (f) => `${f.model} (${f.reason}${f.message ? `: ${clause(f.message)}` : ""})`,
  );
  return `Of the models ${envelope.models.join(", ")}, ${envelope.resolved_model} ${serving}${
    passed.length ? `; passed over: ${passed.join("; ")}` : "; none was passed over"
  }.`;
}

const TERMINAL_STATUSES: ReadonlySet<string> = new Set(["succeeded", "failed", "canceled"]);

/** A task as a tool result: its envelope, a summary, the models passed over, any text answer and its outputs as links. */
export function taskResult(envelope: Envelope, origin: string): CallToolResult {
  const content: ContentBlock[] = [{ type: "text", text: taskSummary(envelope) }];
  const fallbacks = fallbackSummary(envelope);
  if (fallbacks) content.push({ type: "text", text: fallbacks });
  const text = (envelope.output as { text?: unknown } | null)?.text;
  if (typeof text === "string" && text !== "") content.push({ type: "text", text });
  if (envelope.provider?.simulated) {
    content.push({
      type: "text",
      text: "Note: the built-in sandbox serves this task; its output is simulated, not the real model's.",
    });
  }
  content.push(...outputLinks(envelope, origin));
  return { content, structuredContent: envelope as unknown as Record<string, unknown> };
}

/** Any other answer: its JSON as structured content, with a one-line summary. */
export function dataResult(summary: string, data: object): CallToolResult {
  return { content: [{ type: "text", text: summary }], structuredContent: data as Record<string, unknown> };
}
