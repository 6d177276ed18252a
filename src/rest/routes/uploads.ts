/**
 * Uploads (`POST /v1/uploads`) and removal of the caller's artifacts (`DELETE /v1/artifacts/{id}`).
 * An upload is the raw file as the body, or `multipart/form-data` with exactly one file part;
 * src/media/uploads.ts identifies, measures, validates and stores it. The body is read here, after
 * authentication: its declaration says `rawBody`, so the pipeline leaves the body alone.
 *
 * Uploads take no Idempotency-Key: an upload changes no balance and starts nothing, so a retried
 * upload at worst leaves a second artifact, which the client can delete.
 */
import { z } from "@hono/zod-openapi";
import { ApiError } from "../../errors/api-error";
import { newRouter } from "../../http/context";
import { fromJsonPointer } from "../../lib/json-pointer";
import { publicBaseUrl } from "../../lib/public-url";
import { readAtMost, TooLarge } from "../../lib/streams";
import { isJsonLines, storeJsonLines } from "../../services/batches";
import { loadCatalog } from "../../services/catalog";
import { largestImageInputPixels, MAX_UPLOAD_BYTES, UPLOAD_CAP_BYTES, type UploadSource } from "../../services/media";
import { storeRetainedUpload, uploadRetention } from "../../services/retention";
import { deleteArtifactInScope, keyScope } from "../../services/tasks";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

/** Room for a multipart body's boundaries, part headers and small text fields around its file. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;
const ARTIFACT_EXAMPLE = "art_0123456789abcdef0123456789abcdef";

const UploadedArtifact = z
  .object({
    object: z.literal("artifact"),
    artifact_id: z.string().openapi({ example: ARTIFACT_EXAMPLE }),
    kind: z.enum(["image", "video", "audio", "jsonl"]),
    content_type: z.string().openapi({ description: "As identified from the bytes", example: "image/png" }),
    bytes: z.number().int(),
    width: z.number().int().optional(),
    height: z.number().int().optional(),
    duration_seconds: z.number().optional(),
    lines: z.number().int().optional().openapi({ description: "A JSON lines upload (a batch's input file): its lines" }),
    url: z.string().openapi({ description: "The owner's download URL; also accepted as a `url` media input" }),
    created_at: z.string(),
    expires_at: z.string().openapi({
      description: "ISO 8601 (UTC): the tenant's `output_retention_days` after the upload; then it is deleted and answers 404",
    }),
    source: z.literal("upload"),
  })
  .openapi("UploadedArtifact");

const DeletedArtifact = z
  .object({ object: z.literal("artifact"), artifact_id: z.string(), deleted: z.literal(true) })
  .openapi("DeletedArtifact");

const binary = { type: "string" as const, format: "binary" };

function multipartFault(param: string, reason: string): ApiError {
  return new ApiError("invalid_request", `The upload was refused: ${reason}.`, {
    param,
    details: { errors: [{ loc: ["body", ...fromJsonPointer(param)], reason }] },
  });
}

function multipartTooLarge(): ApiError {
  return new ApiError("media_too_large", `A multipart upload may carry a file of at most ${MAX_UPLOAD_BYTES} bytes.`, {
    param: "",
    details: { max_bytes: MAX_UPLOAD_BYTES, limits: UPLOAD_CAP_BYTES },
  });
}

const pointerToken = (name: string) => name.replaceAll("~", "~0").replaceAll("/", "~1");

/**
 * The one file of a `multipart/form-data` body. The runtime's parser needs the whole body, so it
 * is read first, under the largest cap plus the multipart overhead; the file's kind cap follows.
 */
async function multipartSource(req: Request, contentType: string, declared: number | undefined): Promise<UploadSource> {
  const limit = MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES;
  if (declared !== undefined && declared > limit) throw multipartTooLarge();
  let bytes: Uint8Array;
  try {
    bytes = await readAtMost(req.body, limit, { leaveRest: true });
  } catch (e) {
    if (e instanceof TooLarge) throw multipartTooLarge();
    throw multipartFault("", "the body could not be read to its end");
  }
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "Content-Type": contentType } }).formData();
  } catch {
    throw multipartFault("", "the body is not valid multipart/form-data for its boundary");
  }
  const files: [string, File][] = [];
  for (const [name, value] of form.entries()) if (typeof value !== "string") files.push([name, value]);
  if (files.length === 0) throw multipartFault("/file", "a multipart upload needs one file part, and this one has none");
  if (files.length > 1) {
    const [second] = files[1] as [string, File];
    throw multipartFault(
      `/${pointerToken(second)}`,
      `a multipart upload takes exactly one file part, and this one has ${files.length}`,
    );
  }
  const [name, file] = files[0] as [string, File];
  return { body: file.stream(), length: file.size, param: `/${pointerToken(name)}` };
}

/** The file of the request: the raw body (any Content-Type but multipart), or its one multipart file. */
async function uploadSource(req: Request): Promise<UploadSource> {
  const contentType = req.headers.get("Content-Type") ?? "";
  const lengthHeader = req.headers.get("Content-Length");
  const declared = lengthHeader !== null && /^\d{1,15}$/.test(lengthHeader.trim()) ? Number(lengthHeader) : undefined;
  if (/^multipart\/form-data\s*(;|$)/i.test(contentType)) return multipartSource(req, contentType, declared);
  // Over every kind's cap, whatever the bytes turn out to be: refused before any is read.
  if (declared !== undefined && declared > MAX_UPLOAD_BYTES) {
    throw new ApiError("media_too_large", `An upload may be at most ${MAX_UPLOAD_BYTES} bytes.`, {
      param: "",
      details: { max_bytes: MAX_UPLOAD_BYTES, limits: UPLOAD_CAP_BYTES, received_bytes: declared },
    });
  }
  return { body: req.body, ...(declared !== undefined ? { length: declared } : {}), param: "" };
}

export const uploadRoutes = newRouter();

declare(
  uploadRoutes,
  {
    method: "post",
    path: "/v1/uploads",
    rawBody: true,
    operationId: "createUpload",
    tags: ["Artifacts"],
    summary: "Upload a media file as an artifact",
    description:
      "The body is the file itself (any Content-Type), or `multipart/form-data` with exactly one file part. " +
      "The bytes decide what the file is: PNG, JPEG, WebP, GIF, MP4, MOV, WebM, WAV, MP3, FLAC or Ogg; " +
      `images up to ${UPLOAD_CAP_BYTES.image} bytes, videos up to ${UPLOAD_CAP_BYTES.video}, audio up to ${UPLOAD_CAP_BYTES.audio}. ` +
      'The artifact is then an input anywhere a card accepts artifacts: `{type: "artifact", artifact_id}`. ' +
      "`Content-Type: application/jsonl` (raw body) uploads a batch's input file instead: JSON lines `{custom_id, body}`, up to 10,000 lines and 100 MiB, for `POST /v1/batches` `input_file_id`. No Idempotency-Key.",
    security: [{ bearerAuth: [] }],
    "x-lifecycle": "preview",
    permission: "tasks:write",
    request: {
      body: {
        required: true,
        content: {
          "application/octet-stream": { schema: binary },
          "image/*": { schema: binary },
          "video/*": { schema: binary },
          "audio/*": { schema: binary },
          "application/jsonl": { schema: binary },
          "multipart/form-data": { schema: { type: "object", properties: { file: binary }, required: ["file"] } },
        },
      },
    },
    responses: {
      201: { description: "The stored artifact", content: { "application/json": { schema: UploadedArtifact } } },
      ...errorResponses(400, 401, 403, 413, 422),
    },
  },
  async (c) => {
    const caller = c.get("caller");
    if (isJsonLines(c.req.header("Content-Type"))) {
      const declared = Number(c.req.header("Content-Length") ?? Number.NaN);
      const lines = await storeJsonLines(
        c.env.ARTIFACTS,
        c.req.raw.body,
        Number.isFinite(declared) ? declared : undefined,
        caller,
        await uploadRetention(c.env, caller),
      );
      const url = `${publicBaseUrl(c.env)}/v1/artifacts/${lines.artifact_id}`;
      return c.json({ object: "artifact" as const, ...lines, url, source: "upload" as const }, 201, { Location: url });
    }
    const maxImagePixels = largestImageInputPixels(await loadCatalog(c.env.CATALOG));
    const stored = await storeRetainedUpload(c.env, await uploadSource(c.req.raw), caller, { maxImagePixels });
    const url = `${publicBaseUrl(c.env)}/v1/artifacts/${stored.artifact_id}`;
    return c.json({ object: "artifact" as const, ...stored, url, source: "upload" as const }, 201, { Location: url });
  },
);

declare(
  uploadRoutes,
  {
    method: "delete",
    path: "/v1/artifacts/{artifact_id}",
    operationId: "deleteArtifact",
    tags: ["Artifacts"],
    summary: "Delete one of the caller's artifacts (an upload or a task output)",
    description:
      "Later downloads (the owner's and the signed link) answer 404 and a task input naming it `artifact_not_found`. A task output stays in its task's envelope with `deleted: true` and no `url` or `signed_url`. Tasks already admitted keep their own copy of their inputs.",
    security: [{ bearerAuth: [] }],
    "x-lifecycle": "preview",
    permission: "tasks:write",
    request: { params: z.object({ artifact_id: z.string().max(128).openapi({ example: ARTIFACT_EXAMPLE }) }) },
    responses: {
      200: { description: "Deleted", content: { "application/json": { schema: DeletedArtifact } } },
      ...errorResponses(400, 401, 403, 404, 422),
    },
  },
  async (c) => {
    const { artifact_id } = c.req.valid("param");
    if (!(await deleteArtifactInScope(c.env, artifact_id, keyScope(c.get("caller"))))) {
      throw new ApiError("artifact_not_found", `Artifact '${artifact_id}' does not exist.`);
    }
    return c.json({ object: "artifact" as const, artifact_id, deleted: true as const }, 200);
  },
);
