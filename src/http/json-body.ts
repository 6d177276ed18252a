import type { MiddlewareHandler } from "hono";
import { ApiError } from "../errors/api-error";
import type { AppEnv } from "./context";

/** Large enough for data-URI media inputs; larger bodies are refused before parsing. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * Reads and parses a JSON body once, before routing validators see it, so that a malformed
 * body, a wrong content type or an oversized body gets the spec's 422 rather than a bare 400.
 */
export const jsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const method = c.req.method;
  if (method !== "POST" && method !== "PUT" && method !== "PATCH") return next();
  const declared = Number(c.req.header("Content-Length") ?? "0");
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw tooLarge();
  const bytes = await c.req.arrayBuffer();
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
  const text = new TextDecoder().decode(bytes);
  const contentType = (c.req.header("Content-Type") ?? "").split(";")[0]?.trim() ?? "";
  if (text.trim() === "") {
    // An empty body is an empty object: routes whose fields are all optional accept it.
    setParsed(c, {});
    return next();
  }
  if (!JSON_TYPE.test(contentType)) {
    throw new ApiError("invalid_request", "Send the request body as JSON with `Content-Type: application/json`.", {
      details: {
        errors: [{ loc: ["header", "content-type"], reason: `expected application/json, got '${contentType || "none"}'` }],
      },
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ApiError("invalid_request", "The request body is not valid JSON.", {
      param: "",
      details: { errors: [{ loc: ["body"], reason: e instanceof Error ? e.message : "malformed JSON" }] },
    });
  }
  setParsed(c, parsed);
  return next();
};

function setParsed(c: Parameters<MiddlewareHandler<AppEnv>>[0], value: unknown) {
  // The validators read the body through c.req.json(); hand them the value parsed here.
  (c.req.bodyCache as { json?: Promise<unknown> }).json = Promise.resolve(value);
}

function tooLarge(): ApiError {
  return new ApiError("invalid_request", `The request body exceeds ${MAX_BODY_BYTES} bytes.`, {
    details: { errors: [{ loc: ["body"], reason: "body too large" }] },
  });
}
