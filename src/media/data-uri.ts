/**
 * `data:` URIs carrying media inline. Only base64 payloads are taken: percent-encoded binary is
 * ambiguous and several times larger. The declared media type is returned for information only;
 * the bytes are identified by probing them.
 */
import { ApiError } from "../errors/api-error";

export interface DecodedDataUri {
  /** As declared in the URI (lower-cased, parameters dropped); never trusted for identification. */
  declaredMime: string;
  bytes: Uint8Array;
  /** Length of the whole URI as sent, the quantity `data_uri_max_encoded_length` limits. */
  encoded_length: number;
}

export interface DataUriOptions {
  param: string;
  maxEncodedLength?: number;
  maxBytes: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function decodeDataUri(text: string, opts: DataUriOptions): DecodedDataUri {
  const { param } = opts;
  // The length check comes first so an oversized URI is refused before any work on it.
  if (opts.maxEncodedLength !== undefined && text.length > opts.maxEncodedLength) {
    throw new ApiError(
      "media_too_large",
      `The data URI is ${text.length} characters long; at most ${opts.maxEncodedLength} are allowed.`,
      {
        param,
        details: { max_encoded_length: opts.maxEncodedLength, encoded_length: text.length },
      },
    );
  }
  const comma = text.indexOf(",");
  if (!/^data:/i.test(text) || comma < 0) {
    throw new ApiError("invalid_media", "Expected a data URI of the form data:<media type>;base64,<payload>.", { param });
  }
  const [mime = "", ...params] = text.slice(5, comma).split(";");
  if (params.at(-1)?.trim().toLowerCase() !== "base64") {
    throw new ApiError("invalid_media", "Only base64 data URIs are accepted (data:<media type>;base64,<payload>).", { param });
  }
  const payload = text.slice(comma + 1);
  if (payload.length % 4 !== 0 || !BASE64.test(payload)) {
    throw new ApiError("invalid_media", "The data URI payload is not valid base64.", { param });
  }
  const padding = payload.endsWith("==") ? 2 : payload.endsWith("=") ? 1 : 0;
  const size = (payload.length / 4) * 3 - padding;
  if (size > opts.maxBytes) {
    throw new ApiError("media_too_large", `The decoded media is ${size} bytes; at most ${opts.maxBytes} are allowed.`, {
      param,
      details: { max_bytes: opts.maxBytes },
    });
  }
  if (size === 0) throw new ApiError("invalid_media", "The data URI payload is empty.", { param });
  const binary = atob(payload);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return { declaredMime: mime.trim().toLowerCase(), bytes, encoded_length: text.length };
}
