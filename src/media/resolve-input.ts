/**
 * The media input of the API (a URL, an artifact of the caller's, or a data URI) and its
 * resolution to probed bytes. Transport faults point at the field that carries the reference
 * (`…/url`, `…/artifact_id`, `…/data_uri`); faults of the media itself point at the input.
 */
import { z } from "@hono/zod-openapi";
import { checkImagePixels } from "../catalog/image-pixel-bound";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import type { TaskScope } from "../keys/scope";
import { isAllowedLoopback, policyFrom } from "../lib/url-policy";
import { artifactInScope } from "../tasks/artifact-scope";
import { artifactKey } from "./artifacts";
import { decodeDataUri } from "./data-uri";
import { guardedFetch } from "./guarded-fetch";
import { type OwnArtifactRef, ownArtifactOf } from "./own-urls";
import { type ProbedMedia, probeMedia } from "./probe";
import { verifyOutputUrl } from "./signed-outputs";
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
  /**
   * Whether the input satisfies a card's `https_only`: an https URL, a URL of this deployment's own
   * artifacts (read from storage, never fetched), or a loopback URL where the configuration allows
   * those (local development); always true for artifacts and data URIs.
   */
  https: boolean;
  /** For an earlier output of this service: the upstream and job that made it (extensions name it). */
  origin?: { provider: string; job_id: string };
}

export interface ResolveOptions {
  env: Env;
  /** Whose artifacts an input may name: the caller's tenant, and for a task's output, its key mode. */
  scope: TaskScope;
  /** JSON Pointer of the input, e.g. `/images/0`. */
  param: string;
  maxBytes: number;
  /** The cap for an input already in the service's storage (an upload or an output); `maxBytes` unless told. */
  artifactMaxBytes?: number;
  maxEncodedLength?: number;
  /** The most pixels an image input may have (src/catalog/image-pixel-bound.ts); no bound when undefined. */
  maxImagePixels?: number;
}

/** Fetches or decodes an input, identifies it, and checks that a decoder could read it. */
export async function resolveMediaInput(input: MediaInputT, opts: ResolveOptions): Promise<ResolvedMedia> {
  const resolved = await readMediaInput(input, opts);
  // From the probed header, before validation inflates the image: whatever the transport.
  if (resolved.probe.kind === "image") checkImagePixels(resolved.probe, opts.maxImagePixels, opts.param);
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
        https: true,
        data: decoded.bytes,
        probe: probeMedia(decoded.bytes, param),
        encoded_length: decoded.encoded_length,
      };
    }
    case "artifact": {
      const { data, origin } = await readArtifact(
        opts.env,
        opts.scope,
        { artifact_id: input.artifact_id },
        `${param}/artifact_id`,
        opts.artifactMaxBytes ?? opts.maxBytes,
      );
      return { transport: "artifact", https: true, data, probe: probeMedia(data, param), ...(origin ? { origin } : {}) };
    }
    case "url": {
      // A URL of this deployment's own artifacts is read from storage: no HTTP fetch of itself.
      const own = ownArtifactOf(input.url, opts.env);
      if (own) {
        const { data, origin } = await readArtifact(
          opts.env,
          opts.scope,
          own,
          `${param}/url`,
          opts.artifactMaxBytes ?? opts.maxBytes,
        );
        return { transport: "url", https: true, data, probe: probeMedia(data, param), ...(origin ? { origin } : {}) };
      }
      const policy = policyFrom(opts.env);
      const fetched = await guardedFetch(input.url, { policy, maxBytes: opts.maxBytes, param: `${param}/url` });
      return {
        transport: "url",
        https: /^https:/i.test(input.url) || isAllowedLoopback(input.url, policy),
        data: fetched.bytes,
        probe: probeMedia(fetched.bytes, param),
      };
    }
  }
}

/**
 * The caller's artifact; or, named by a signed download URL whose signature holds, anyone's
 * (the signature is the owner's permission, as it would be for an HTTP fetch of that URL).
 */
async function readArtifact(
  env: Env,
  scope: TaskScope,
  ref: OwnArtifactRef,
  param: string,
  maxBytes: number,
): Promise<{ data: Uint8Array; origin?: { provider: string; job_id: string } }> {
  const id = ref.artifact_id;
  // Another tenant's artifact (or another key mode's output) answers exactly as an unknown one, so ids reveal nothing.
  let object = (await artifactInScope(env, id, scope)) ? await env.ARTIFACTS.get(artifactKey(id)) : null;
  if (!object && ref.signature && (await verifyOutputUrl(env, id, ref.signature.expires, ref.signature.sig)) !== null) {
    object = await env.ARTIFACTS.get(artifactKey(id));
  }
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
