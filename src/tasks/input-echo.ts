/**
 * The request as a task's envelope echoes it (`input`). Inline media never enter a task's record:
 * a data URI input is echoed as `{type: "data_uri", media_type, bytes, sha256}`, the bytes being
 * in R2 already (`inputs/<tenant>/<sha256>`). The idempotency hash is taken over the body as sent,
 * never over this echo, so two different data URIs stay two different requests.
 */
import { sha256Hex } from "../lib/crypto";
import { decodeDataUri } from "../media/data-uri";
import type { StoredMedia } from "../operations/types";

export interface DataUriSummary {
  type: "data_uri";
  /** As probed from the bytes (as declared, for a data URI outside the media fields). */
  media_type: string;
  /** Decoded size. */
  bytes: number;
  /** SHA-256 of the decoded bytes, hex: the same file sent twice has the same digest. */
  sha256: string;
}

/** A bare string this long that starts with `data:` is not echoed either (it is no media input). */
const ECHO_INLINE_MAX = 256;

const escapeToken = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

/** The summaries of the data URI inputs admission has resolved, by JSON Pointer. */
function summariesOf(media: StoredMedia[]): Map<string, DataUriSummary> {
  const out = new Map<string, DataUriSummary>();
  for (const m of media) {
    if (m.transport !== "data_uri") continue;
    // The input's key is content-addressed: `inputs/<tenant>/<sha256 of every byte>`.
    const sha256 = m.key.slice(m.key.lastIndexOf("/") + 1);
    out.set(m.param, { type: "data_uri", media_type: m.facts.mime, bytes: m.facts.bytes, sha256 });
  }
  return out;
}

/** A data URI that no media field carried (a free-form option): summarised from its text. */
async function summariseText(text: string): Promise<DataUriSummary> {
  const declared = /^data:([^;,]*)/i.exec(text)?.[1]?.trim().toLowerCase() || "application/octet-stream";
  try {
    const { bytes } = decodeDataUri(text, { param: "", maxBytes: Number.MAX_SAFE_INTEGER });
    return { type: "data_uri", media_type: declared, bytes: bytes.length, sha256: await sha256Hex(bytes) };
  } catch {
    const raw = new TextEncoder().encode(text);
    return { type: "data_uri", media_type: declared, bytes: raw.length, sha256: await sha256Hex(raw) };
  }
}

function isDataUriInput(value: Record<string, unknown>): value is { type: "data_uri"; data_uri: string } {
  return value.type === "data_uri" && typeof value.data_uri === "string";
}

/** `value` (found at `pointer` in the body) with every inline medium replaced by its summary. */
async function echoAt(value: unknown, pointer: string, summaries: Map<string, DataUriSummary>): Promise<unknown> {
  if (typeof value === "string") {
    if (value.length > ECHO_INLINE_MAX && value.startsWith("data:")) {
      const head = value.slice(0, Math.min(value.indexOf(",") + 1 || 64, 64));
      return `${head}[${value.length} characters, not echoed]`;
    }
    return value;
  }
  if (Array.isArray(value)) return Promise.all(value.map((v, i) => echoAt(v, `${pointer}/${i}`, summaries)));
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if (isDataUriInput(record)) return summaries.get(pointer) ?? summariseText(record.data_uri);
    const entries = await Promise.all(
      Object.entries(record).map(async ([k, v]) => [k, await echoAt(v, `${pointer}/${escapeToken(k)}`, summaries)] as const),
    );
    return Object.fromEntries(entries);
  }
  return value;
}

/** The envelope's `input`: the body's fields (as sent) with inline media summarised. */
export async function echoInput(fields: Record<string, unknown>, media: StoredMedia[] = []): Promise<Record<string, unknown>> {
  return (await echoAt(fields, "", summariesOf(media))) as Record<string, unknown>;
}
