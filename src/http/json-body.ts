import type { MiddlewareHandler } from "hono";
import { ApiError } from "../errors/api-error";
import { readAtMost, TooLarge } from "../lib/streams";
import type { AppEnv } from "./context";

/** Large enough for data-URI media inputs; larger bodies are refused before parsing. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Far deeper than any request of the API needs, far shallower than a stack can hold. */
export const MAX_JSON_DEPTH = 64;
const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * A request's JSON body, read once under MAX_BODY_BYTES: the spec's 422 (or 413) for a malformed,
 * mistyped, too deep or too large one. No body at all is an empty object whatever its declared
 * type (curl's `-d ''` says form, a bodiless fetch says nothing): routes whose body is optional
 * accept it, the others name their fields.
 */
export async function readJsonBody(req: Request): Promise<{ value: unknown; empty: boolean }> {
  const length = req.headers.get("Content-Length");
  const declared = Number(length ?? "0");
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw tooLarge();
  let text: string;
  if (length !== null && Number.isFinite(declared)) {
    // A declared length within the cap bounds the body (the runtime holds a client to it): the
    // runtime reads and decodes it natively.
    text = await req.text();
  } else {
    try {
      text = new TextDecoder().decode(await readAtMost(req.body, MAX_BODY_BYTES, { leaveRest: true }));
    } catch (e) {
      throw e instanceof TooLarge ? tooLarge() : e;
    }
  }
  if (text.trim() === "") return { value: {}, empty: true };
  const contentType = (req.headers.get("Content-Type") ?? "").split(";")[0]?.trim() ?? "";
  if (!JSON_TYPE.test(contentType)) {
    throw new ApiError("invalid_request", "Send the request body as JSON with `Content-Type: application/json`.", {
      details: {
        errors: [{ loc: ["header", "content-type"], reason: `expected application/json, got '${contentType || "none"}'` }],
      },
    });
  }
  const depth = nestingDepth(text, MAX_JSON_DEPTH);
  if (depth > MAX_JSON_DEPTH) {
    throw new ApiError("invalid_request", `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`, {
      param: "",
      details: { errors: [{ loc: ["body"], reason: `nesting deeper than ${MAX_JSON_DEPTH} levels` }], max_depth: MAX_JSON_DEPTH },
    });
  }
  try {
    return { value: JSON.parse(text), empty: false };
  } catch (e) {
    throw new ApiError("invalid_request", "The request body is not valid JSON.", {
      param: "",
      details: { errors: [{ loc: ["body"], reason: e instanceof Error ? e.message : "malformed JSON" }] },
    });
  }
}

/**
 * For routes that read their body themselves (provider and payment webhooks): the body is read
 * once under `cap` (413 past it, on the declared length or the count) and handed on as a fresh
 * request holding those bytes, so no reader downstream can take more.
 */
export const boundedBody =
  (cap: number): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body) return next();
    const declared = Number(raw.headers.get("Content-Length") ?? "0");
    if (Number.isFinite(declared) && declared > cap) throw tooLarge(cap);
    let bytes: Uint8Array;
    try {
      bytes = await readAtMost(raw.body, cap, { leaveRest: true });
    } catch (e) {
      throw e instanceof TooLarge ? tooLarge(cap) : e;
    }
    c.req.raw = new Request(raw.url, {
      method: raw.method,
      headers: raw.headers,
      body: bytes,
      signal: raw.signal,
      ...(raw.cf ? { cf: raw.cf } : {}),
    });
    return next();
  };

/** 413 with the envelope; the body is the media carrier of this API (data URIs), hence the code. */
function tooLarge(cap = MAX_BODY_BYTES): ApiError {
  return new ApiError("media_too_large", `The request body exceeds ${cap} bytes.`, {
    param: "",
    details: { limit_bytes: cap },
  });
}

/**
 * The deepest nesting of arrays and objects in JSON text, counted without recursion before
 * anything parses or walks it (stops counting past `limit`). Brackets inside strings do not count.
 */
export function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92)
        i++; // backslash: skip the escaped character
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) {
      depth++;
      if (depth > max) max = depth;
      if (max > limit) return max;
    } else if (ch === 125 || ch === 93) depth--;
  }
  return max;
}
