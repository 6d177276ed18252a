/**
 * The media input of the API (a URL, an artifact of the caller's, or a data URI) and its
 * resolution to probed bytes. Transport faults point at the field that carries the reference
 * (`…/url`, `…/artifact_id`, `…/data_uri`); faults of the media itself point at the input.
 */
import { z } from "@hono/zod-openapi";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { policyFrom } from "../lib/url-policy";
import { getArtifact } from "./artifacts";
import { decodeDataUri } from "./data-uri";
import { guardedFetch } from "./guarded-fetch";
import { type ProbedMedia, probeMedia } from "./probe";
import { validateMedia } from "./validate";

export const MediaInput = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("url"), url: z.string().min(1).max(4096) }).strict(),
    z.object({ type: z.literal("artifact"), artifact_id: z.string().min(1).max(128) }).strict(),
    z.object({ type: z.literal("data_uri"), data_uri: z.string().min(5) }).strict(),
  ])
  .openapi("MediaInput");

export type MediaInputT = z.infer<typeof MediaInput>;

export interface ResolvedMedia {
  transport: "url" | "artifact" | "data_uri";
  data: Uint8Array;
  probe: ProbedMedia;
  encoded_length?: number;
  /** For an earlier output of this service: the upstream and job that made it (extensions name it). */
  origin?: { provider: string; job_id: string };
}

export interface ResolveOptions {
  env: Env;
  tenantId: string;
  /** JSON Pointer of the input, e.g. `/images/0`. */
  param: string;
  maxBytes: number;
  maxEncodedLength?: number;
}

/** Fetches or decodes an input, identifies it, and checks that a decoder could read it. */
export async function resolveMediaInput(input: MediaInputT, opts: ResolveOptions): Promise<ResolvedMedia> {
  const resolved = await readMediaInput(input, opts);
  await validateMedia(resolved.data, resolved.probe, opts.param);
  return resolved;
}

async function readMediaInput(input: MediaInputT, opts: ResolveOptions): Promise<ResolvedMedia> {
  const { param } = opts;
  switch (input.type) {
    case "data_uri": {
      const decoded = decodeDataUri(input.data_uri, {
        param: `${param}/data_uri`,
        maxBytes: opts.maxBytes,
        ...(opts.maxEncodedLength !== undefined ? { maxEncodedLength: opts.maxEncodedLength } : {}),
      });
      return {
        transport: "data_uri",
        data: decoded.bytes,
        probe: probeMedia(decoded.bytes, param),
        encoded_length: decoded.encoded_length,
      };
    }
    case "artifact": {
      const { data, origin } = await readArtifact(
        opts.env,
        opts.tenantId,
        input.artifact_id,
        `${param}/artifact_id`,
        opts.maxBytes,
      );
      return { transport: "artifact", data, probe: probeMedia(data, param), ...(origin ? { origin } : {}) };
    }
    case "url": {
      const fetched = await guardedFetch(input.url, {
        policy: policyFrom(opts.env),
        maxBytes: opts.maxBytes,
        param: `${param}/url`,
      });
      return { transport: "url", data: fetched.bytes, probe: probeMedia(fetched.bytes, param) };
    }
  }
}

async function readArtifact(
  env: Env,
  tenantId: string,
  id: string,
  param: string,
  maxBytes: number,
): Promise<{ data: Uint8Array; origin?: { provider: string; job_id: string } }> {
  // Another tenant's artifact answers exactly as an unknown one, so ids reveal nothing.
  const object = await getArtifact(env.ARTIFACTS, id, tenantId);
  if (!object) throw new ApiError("artifact_not_found", `No artifact '${id}' exists for this account.`, { param });
  if (object.size > maxBytes) {
    await object.body.cancel().catch(() => {});
    throw new ApiError("media_too_large", `The artifact is ${object.size} bytes; at most ${maxBytes} are allowed.`, {
      param,
      details: { max_bytes: maxBytes },
    });
  }
  const meta = object.customMetadata ?? {};
  const origin = meta.provider && meta.upstream_job_id ? { provider: meta.provider, job_id: meta.upstream_job_id } : undefined;
  return { data: new Uint8Array(await object.arrayBuffer()), ...(origin ? { origin } : {}) };
}
