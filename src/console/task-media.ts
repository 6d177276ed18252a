/**
 * What a task page previews: its outputs (by their signed URLs, which need no key, so a plain
 * `<img>` or `<video>` can load them) and its media inputs (a URL as given, an artifact of the
 * tenant's signed the same way, an inline data URI only described: its bytes are not echoed).
 */
import type { Env } from "../http/context";
import { canSignOutputUrls, headArtifact, outputUrlExpiry, signOutputUrl } from "../services/media";

export type PreviewKind = "image" | "video" | "audio" | "other";

export interface Preview {
  /** Where it is in the envelope: `output/artifacts/0`, `input/images/1`, … */
  label: string;
  kind: PreviewKind;
  /** What a browser can load without a key; null when nothing can be shown. */
  url: string | null;
  content_type?: string;
  bytes?: number;
  width?: number;
  height?: number;
  duration_seconds?: number;
  /** Why there is no preview, or what the input was. */
  note?: string;
  /** An output kept until then (its retention's end), while it is still stored. */
  expires_at?: string;
}

/** At most this many input previews on one page (a request may carry many media inputs). */
const MAX_INPUT_PREVIEWS = 16;

export function kindOf(contentType: string | undefined): PreviewKind {
  const type = (contentType ?? "").toLowerCase();
  if (type.startsWith("image/")) return "image";
  if (type.startsWith("video/")) return "video";
  if (type.startsWith("audio/")) return "audio";
  return "other";
}

/** A media input's kind from the field that carries it (a URL's bytes are not looked at here). */
function kindOfField(pointer: string): PreviewKind {
  if (/video/i.test(pointer)) return "video";
  if (/audio|voice|music|speech/i.test(pointer)) return "audio";
  if (/image|frame|mask|reference|style|subject/i.test(pointer)) return "image";
  return "other";
}

interface ArtifactLike {
  artifact_id?: unknown;
  signed_url?: unknown;
  content_type?: unknown;
  bytes?: unknown;
  index?: unknown;
  width?: unknown;
  height?: unknown;
  duration_seconds?: unknown;
  deleted?: unknown;
  expires_at?: unknown;
  expired?: unknown;
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** One preview per stored output (`output.artifacts`, else `output.images`). */
export function outputPreviews(output: Record<string, unknown> | null | undefined): Preview[] {
  if (!output) return [];
  const list = (
    Array.isArray(output.artifacts) ? output.artifacts : Array.isArray(output.images) ? output.images : []
  ) as ArtifactLike[];
  return list.map((a, i) => {
    const contentType = typeof a.content_type === "string" ? a.content_type : undefined;
    const url = typeof a.signed_url === "string" ? a.signed_url : null;
    return {
      label: `output/artifacts/${num(a.index) ?? i}`,
      kind: kindOf(contentType),
      url,
      ...(contentType ? { content_type: contentType } : {}),
      ...(num(a.bytes) !== undefined ? { bytes: num(a.bytes) } : {}),
      ...(num(a.width) !== undefined ? { width: num(a.width) } : {}),
      ...(num(a.height) !== undefined ? { height: num(a.height) } : {}),
      ...(num(a.duration_seconds) !== undefined ? { duration_seconds: num(a.duration_seconds) } : {}),
      ...(typeof a.expires_at === "string" && a.expired !== true ? { expires_at: a.expires_at } : {}),
      ...(url
        ? {}
        : {
            note:
              a.expired === true
                ? `Expired: its retention ended${typeof a.expires_at === "string" ? ` (${a.expires_at})` : ""} or its outputs were deleted; the file is gone.`
                : a.deleted === true
                  ? "Deleted: the file of this output was removed."
                  : "No signed link: this deployment has no signing secret (ADMIN_TOKEN or INPUT_URL_SECRET).",
          }),
    };
  });
}

type MediaRef =
  | { pointer: string; type: "url"; url: string }
  | { pointer: string; type: "artifact"; artifact_id: string }
  | { pointer: string; type: "data_uri"; media_type?: string; bytes?: number };

/** The media inputs of an envelope's `input`, depth first, as the request placed them. */
function mediaRefs(value: unknown, pointer: string, out: MediaRef[]): void {
  if (out.length >= MAX_INPUT_PREVIEWS) return;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) mediaRefs(v, `${pointer}/${i}`, out);
    return;
  }
  if (!value || typeof value !== "object") return;
  const r = value as Record<string, unknown>;
  if (r.type === "url" && typeof r.url === "string") out.push({ pointer, type: "url", url: r.url });
  else if (r.type === "artifact" && typeof r.artifact_id === "string")
    out.push({ pointer, type: "artifact", artifact_id: r.artifact_id });
  else if (r.type === "data_uri")
    out.push({
      pointer,
      type: "data_uri",
      ...(typeof r.media_type === "string" ? { media_type: r.media_type } : {}),
      ...(num(r.bytes) !== undefined ? { bytes: num(r.bytes) } : {}),
    });
  else for (const [k, v] of Object.entries(r)) mediaRefs(v, `${pointer}/${k}`, out);
}

/** The public origin the envelope's links use (signed URLs are made under it). */
function originOf(selfLink: unknown): string | null {
  if (typeof selfLink !== "string") return null;
  const at = selfLink.indexOf("/v1/tasks/");
  return at > 0 ? selfLink.slice(0, at) : null;
}

/** Previews of the media inputs; an artifact is looked up (the tenant's only) and signed. */
export async function inputPreviews(
  env: Env,
  tenantId: string,
  envelope: { input?: unknown; links?: { self?: unknown } },
): Promise<Preview[]> {
  const refs: MediaRef[] = [];
  mediaRefs(envelope.input, "input", refs);
  const origin = originOf(envelope.links?.self) ?? env.PUBLIC_BASE_URL ?? "";
  const expires = outputUrlExpiry(Date.now());
  return Promise.all(
    refs.map(async (ref): Promise<Preview> => {
      if (ref.type === "url") {
        // Only web URLs are shown as media: anything else stays text.
        const web = /^https?:\/\//i.test(ref.url);
        return { label: ref.pointer, kind: web ? kindOfField(ref.pointer) : "other", url: web ? ref.url : null, note: ref.url };
      }
      if (ref.type === "data_uri") {
        return {
          label: ref.pointer,
          kind: "other",
          url: null,
          note: `inline data (${ref.media_type ?? "unknown type"}${ref.bytes !== undefined ? `, ${ref.bytes} bytes` : ""}), not kept for preview`,
          ...(ref.media_type ? { content_type: ref.media_type } : {}),
        };
      }
      const head = await headArtifact(env.ARTIFACTS, ref.artifact_id, tenantId);
      if (!head) return { label: ref.pointer, kind: "other", url: null, note: `${ref.artifact_id} (no longer stored)` };
      const contentType = head.httpMetadata?.contentType;
      // Never signed past the artifact's own end (src/retention).
      const end = head.customMetadata?.expires_at;
      const until = end ? Math.min(expires, Math.floor(Date.parse(end) / 1000)) : expires;
      return {
        label: ref.pointer,
        kind: kindOf(contentType),
        url: canSignOutputUrls(env) && origin ? await signOutputUrl(env, origin, ref.artifact_id, until) : null,
        bytes: head.size,
        note: ref.artifact_id,
        ...(contentType ? { content_type: contentType } : {}),
      };
    }),
  );
}
