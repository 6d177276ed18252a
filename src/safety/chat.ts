/**
 * Content review of chat completions, when the deployment turns it on (SAFETY_REVIEW_CHAT =
 * "true"): after the model is chosen, before anything is held. The text of the system, developer
 * and user messages is reviewed (assistant and tool messages are the model's and the tools' own),
 * and images given as data URLs; an image given by URL is fetched by the upstream, not here, and
 * is left unreviewed. A refusal is `400 safety_rejected` with the message's pointer and is written
 * to the tenant's audit log; chat has no Idempotency-Key to keep it against. Admitted without a
 * review (fail-open), the answer carries `X-Safety-Review: skipped`.
 */
import { recordAudit } from "../audit/audit";
import type { CatalogBundle } from "../catalog/build";
import type { ChatCompletionRequest } from "../chat/schema";
import type { Env } from "../env";
import { fromBase64Url } from "../lib/base64";
import { safetyConfig } from "./config";
import type { ReviewItem } from "./provider";
import { type Reviewed, refusalError, review, reviewerFor } from "./review";

const REVIEWED_ROLES = new Set(["system", "developer", "user"]);
const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+)$/i;

export function chatItems(body: ChatCompletionRequest): ReviewItem[] {
  const items: ReviewItem[] = [];
  body.messages.forEach((m, i) => {
    if (!REVIEWED_ROLES.has(m.role)) return;
    const content = (m as { content: unknown }).content;
    if (typeof content === "string") {
      if (content.trim()) items.push({ kind: "text", param: `/messages/${i}/content`, text: content });
      return;
    }
    if (!Array.isArray(content)) return;
    content.forEach((part: { type?: string; text?: string; image_url?: { url?: string } }, j) => {
      if (part.type === "text" && typeof part.text === "string" && part.text.trim()) {
        items.push({ kind: "text", param: `/messages/${i}/content/${j}/text`, text: part.text });
      } else if (part.type === "image_url" && typeof part.image_url?.url === "string") {
        const data = DATA_URL.exec(part.image_url.url);
        if (!data) return;
        try {
          const bytes = fromBase64Url((data[2] as string).replace(/\s+/g, ""));
          items.push({
            kind: "image",
            param: `/messages/${i}/content/${j}/image_url/url`,
            bytes,
            mime: (data[1] as string).toLowerCase(),
          });
        } catch {
          // Not base64 after all: the upstream will refuse it; nothing here to review.
        }
      }
    });
  });
  return items;
}

/** Reviews a chat request; throws the refusal (or fail-closed's 503), else the headers the answer carries. */
export async function reviewChat(
  env: Env,
  who: Reviewed & { key_id: string },
  requestId: string,
  body: ChatCompletionRequest,
  bundle: CatalogBundle,
): Promise<Record<string, string>> {
  if (!safetyConfig(env).reviewChat) return {};
  const outcome = await review(await reviewerFor(env, who, bundle), chatItems(body), requestId);
  if (outcome.kind === "admitted") return outcome.record.outcome === "skipped" ? { "X-Safety-Review": "skipped" } : {};
  try {
    await recordAudit(env, who.tenant_id, {
      actor: { type: "api_key", id: who.key_id },
      action: "safety.refused",
      target: "POST /v1/chat/completions",
      details: { ...outcome.refusal.audit, capability: "chat_completion", request_id: requestId },
    });
  } catch (e) {
    console.error(
      JSON.stringify({ level: "error", request_id: requestId, message: `safety.refused audit entry not written: ${String(e)}` }),
    );
  }
  throw refusalError(outcome.refusal.error);
}
