/**
 * OpenAI's moderation endpoint (`POST /v1/moderations`, model `omni-moderation-latest`), as its
 * API reference and official client (openai-node: resources/moderations) describe it:
 *   request  {model, input: string[] | [{type: "image_url", image_url: {url}}]}
 *   answer   {id, model, results: [{flagged, categories, category_scores, category_applied_input_types}]}
 *   errors   {error: {message, type, param, code}}; 429 with `retry-after` and `x-ratelimit-*` headers
 * Texts go in one call as an array of strings (one result per string, in order), each long text
 * in pieces. Images go one per call: the endpoint takes at most one image per request (400
 * `too_many_images` otherwise), PNG, JPEG, WebP or GIF up to 20 MB, as a data URL of the bytes
 * admission already fetched; other images are left unreviewed. The moderation endpoint is free
 * and reads nothing twice, so a 429 or 5xx is retried while the review's time allows.
 */
import { toBase64 } from "../../lib/base64";
import type { ProviderConfig } from "../../providers/config";
import { call, type Described, readJson } from "../../providers/http";
import { describeOpenAI } from "../../providers/openai/client";
import { ProviderError } from "../../providers/types";
import {
  type ItemVerdict,
  type ModerationProvider,
  type ModerationResult,
  ModerationUnavailable,
  type ReviewItem,
  remaining,
} from "../provider";

export const OPENAI_MODERATION_URL = "https://api.openai.com/v1/moderations";
export const OPENAI_MODERATION_MODEL = "omni-moderation-latest";

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** The moderation guide advises short pieces for long texts; pieces overlap so no phrase is cut in two. */
export const TEXT_PIECE_CHARS = 8_000;
const PIECE_OVERLAP = 200;
const MAX_ATTEMPTS = 3;
const IMAGE_CALLS_AT_ONCE = 4;

interface Moderation {
  flagged: boolean;
  categories: Record<string, boolean | null>;
  category_scores: Record<string, number>;
}

/** Splits a long text into overlapping pieces (code points, never half a surrogate pair). */
export function textPieces(text: string, size = TEXT_PIECE_CHARS, overlap = PIECE_OVERLAP): string[] {
  const chars = Array.from(text);
  if (chars.length <= size) return [text];
  const out: string[] = [];
  for (let start = 0; start < chars.length; start += size - overlap) {
    out.push(chars.slice(start, start + size).join(""));
    if (start + size >= chars.length) break;
  }
  return out;
}

function isModeration(r: unknown): r is Moderation {
  if (!r || typeof r !== "object") return false;
  const m = r as Record<string, unknown>;
  return (
    typeof m.flagged === "boolean" &&
    !!m.categories &&
    typeof m.categories === "object" &&
    !!m.category_scores &&
    typeof m.category_scores === "object" &&
    Object.values(m.category_scores as object).every((v) => typeof v === "number")
  );
}

/** Several results for one field (the pieces of a text): the highest score and every flag. */
function merge(param: string, results: Moderation[]): ItemVerdict {
  const scores: Record<string, number> = {};
  const flagged = new Set<string>();
  for (const r of results) {
    for (const [c, s] of Object.entries(r.category_scores)) scores[c] = Math.max(scores[c] ?? 0, s);
    for (const [c, f] of Object.entries(r.categories)) if (f === true) flagged.add(c);
  }
  return { param, scores, flagged: [...flagged] };
}

/** OpenAI's error body; only rate limits and server errors are worth another attempt (not a refused key). */
function describeModeration(status: number, text: string, headers: Headers): Described {
  return { message: describeOpenAI(status, text, headers).message, retryable: status === 429 || status === 408 || status >= 500 };
}

export class OpenAIModeration implements ModerationProvider {
  readonly name = "openai";
  readonly external = true;
  readonly reviewsImages = true;
  private readonly config: ProviderConfig;

  constructor(opts: { apiKey: string; url?: string; model?: string }) {
    this.config = {
      name: "openai-moderation",
      apiKey: opts.apiKey,
      baseUrl: opts.url ?? OPENAI_MODERATION_URL,
      timeoutMs: 3000,
      extra: {},
    };
    this.model = opts.model ?? OPENAI_MODERATION_MODEL;
  }
  private readonly model: string;

  async review(items: ReviewItem[], deadline: number): Promise<ModerationResult> {
    const texts = items.filter((i) => i.kind === "text");
    const images = items.filter((i) => i.kind === "image");
    const reviewable = images.filter((i) => IMAGE_TYPES.has(i.mime) && i.bytes.length <= MAX_IMAGE_BYTES);
    const unreviewed = images.filter((i) => !reviewable.includes(i)).map((i) => i.param);
    const calls: Promise<ItemVerdict[]>[] = [];
    if (texts.length > 0) calls.push(this.reviewTexts(texts, deadline));
    // A few images at a time: each is held base64-encoded while its call is out.
    let next = 0;
    const imageVerdicts: ItemVerdict[] = [];
    const worker = async () => {
      while (next < reviewable.length) {
        const image = reviewable[next++] as (typeof reviewable)[number];
        const input = [{ type: "image_url", image_url: { url: `data:${image.mime};base64,${toBase64(image.bytes)}` } }];
        imageVerdicts.push(merge(image.param, await this.moderate(input, 1, deadline)));
      }
    };
    for (let i = 0; i < Math.min(IMAGE_CALLS_AT_ONCE, reviewable.length); i++) calls.push(worker().then(() => []));
    const verdicts = [...(await Promise.all(calls)).flat(), ...imageVerdicts];
    return { verdicts, unreviewed };
  }

  private async reviewTexts(texts: { param: string; text: string }[], deadline: number): Promise<ItemVerdict[]> {
    const pieces = texts.map((t) => textPieces(t.text));
    const input = pieces.flat();
    const results = await this.moderate(input, input.length, deadline);
    let at = 0;
    return texts.map((t, i) => {
      const n = (pieces[i] as string[]).length;
      const mine = results.slice(at, at + n);
      at += n;
      return merge(t.param, mine);
    });
  }

  /** One moderation call (retried on 429 and 5xx within the deadline); `expected` results, in order. */
  private async moderate(input: unknown[], expected: number, deadline: number): Promise<Moderation[]> {
    for (let attempt = 1; ; attempt++) {
      const left = remaining(deadline);
      if (left <= 0) throw new ModerationUnavailable("the moderation endpoint did not answer in time", "timeout");
      try {
        const res = await call(
          this.config,
          { Authorization: `Bearer ${this.config.apiKey}` },
          {
            method: "POST",
            path: this.config.baseUrl,
            json: { model: this.model, input },
            timeoutMs: left,
            retries: 0,
            describe: describeModeration,
          },
        );
        const body = await readJson<{ results?: unknown }>(this.config, res);
        const results = Array.isArray(body?.results) ? body.results : null;
        if (!results || results.length !== expected || !results.every(isModeration)) {
          throw new ModerationUnavailable(
            `the moderation endpoint answered without ${expected} result(s) in its documented shape`,
            "malformed",
          );
        }
        return results;
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
        const reason =
          e.code === "model_timeout"
            ? "timeout"
            : e.upstreamStatus === 429
              ? "rate_limited"
              : e.malformed
                ? "malformed"
                : "upstream_error";
        const wait = e.retryAfterMs ?? 200 * 2 ** (attempt - 1);
        if (!e.retryable || attempt >= MAX_ATTEMPTS || wait >= remaining(deadline)) {
          throw new ModerationUnavailable(e.message, reason);
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }
}
