/**
 * `GET /files/{artifact_id}?expires=&sig=`: a task output through its signed URL
 * (src/media/signed-outputs.ts), with no API key, for a browser, a player or another service.
 * An altered, expired or deleted link answers the same 404 `artifact_not_found`, so the answer
 * tells nothing about which it was.
 */
import { z } from "@hono/zod-openapi";
import { ApiError } from "../../errors/api-error";
import { artifactResponse } from "../../http/artifact-response";
import { newRouter } from "../../http/context";
import { artifactKey, OUTPUT_URL_TTL_SECONDS, signedLinkQuery, verifyOutputUrl } from "../../services/media";
import { objectExpired } from "../../services/retention";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

export const fileRoutes = newRouter();

const notFound = () =>
  new ApiError("artifact_not_found", "This link is not valid: it has expired, it was altered, or its artifact no longer exists.");

const binary = { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } };

declare(
  fileRoutes,
  {
    method: "get",
    path: "/files/{artifact_id}",
    operationId: "downloadSignedArtifact",
    tags: ["Tasks"],
    summary: "Download an artifact through its signed URL (no API key; byte ranges supported)",
    description: `The \`signed_url\` of an output artifact in a task envelope. It works without an API key until \`signed_url_expires_at\` (at least ${OUTPUT_URL_TTL_SECONDS / 3600} hours after the envelope was read); an altered, expired or deleted one answers 404 \`artifact_not_found\`.`,
    security: [],
    "x-lifecycle": "preview",
    request: {
      params: z.object({ artifact_id: z.string() }),
      // Described, not validated here: a missing, repeated or extra parameter is the same 404 as a
      // wrong one (signedLinkQuery), never a validation error.
      query: z.object({
        expires: z.unknown().optional().openapi({ type: "string", description: "Unix seconds, as signed" }),
        sig: z.unknown().optional().openapi({ type: "string", description: "The signature, as signed" }),
      }),
    },
    responses: {
      200: { description: "The bytes", content: binary },
      206: { description: "Part of the bytes", content: binary },
      416: { description: "No byte of the artifact is in the requested range (`Content-Range: bytes */<size>`)" },
      ...errorResponses(404),
    },
  },
  async (c) => {
    const id = c.req.param("artifact_id");
    const now = Date.now();
    const query = signedLinkQuery(new URL(c.req.url).search);
    const until = query && (await verifyOutputUrl(c.env, id, query.expires, query.sig, now));
    if (!until) throw notFound();
    const head = await c.env.ARTIFACTS.head(artifactKey(id));
    if (!head || objectExpired(head, now)) throw notFound();
    // Never cached past the link's own end; the link is a capability, so no shared cache keeps it.
    const maxAge = Math.max(0, Math.min(OUTPUT_URL_TTL_SECONDS, until - Math.ceil(now / 1000)));
    const response = await artifactResponse(c, id, {
      head,
      cacheControl: `private, max-age=${maxAge}`,
      notFound,
      headers: {
        "Referrer-Policy": "no-referrer",
        // Usable from any page (the link itself is the authorisation), ranges included.
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Expose-Headers": "Content-Range, Accept-Ranges, ETag",
      },
    });
    // Bytes, which the route's declared responses describe; the typed helpers cannot say so.
    return response as never;
  },
);
