/** The request's media inputs: fetched, probed and stored once, before any card is consulted. */

import { ApiError } from "../../errors/api-error";
import { keyScope } from "../../keys/scope";
import { sha256Hex } from "../../lib/crypto";
import { resolveMediaInput } from "../../media/resolve-input";
import { UPLOAD_CAP_BYTES } from "../../media/uploads";
import type { MediaRef, StoredMedia } from "../../operations/types";
import type { AdmissionContext } from "./context";
import type { FetchedImages } from "./safety";

/** Fetches and probes every media input once, and keeps its bytes where the provider can read them. */
export async function resolveMedia(
  ctx: AdmissionContext,
  refs: MediaRef[],
  maxImagePixels: number | undefined,
  images?: FetchedImages,
): Promise<StoredMedia[]> {
  return Promise.all(
    refs.map(async (ref) => {
      const resolved = await resolveMediaInput(ref.input, {
        env: ctx.env,
        scope: keyScope(ctx.caller),
        param: ref.param,
        // Caps before any card is consulted (cards then apply their own limits).
        maxBytes: UPLOAD_CAP_BYTES[ref.kind],
        artifactMaxBytes: UPLOAD_CAP_BYTES[ref.kind],
        ...(maxImagePixels !== undefined ? { maxImagePixels } : {}),
      });
      if (resolved.probe.kind !== ref.kind) {
        throw new ApiError("unsupported_media_type", `Expected ${ref.kind} media at ${ref.param}, got ${resolved.probe.mime}.`, {
          param: ref.param,
          details: { expected_kind: ref.kind, detected: resolved.probe.mime },
        });
      }
      // Content review reads these bytes (src/tasks/admit/safety.ts): nothing is fetched twice.
      if (images && resolved.probe.kind === "image") images.set(ref.param, { bytes: resolved.data, mime: resolved.probe.mime });
      // Content-addressed over every byte: two inputs share a key only when they are the same file.
      const key = `inputs/${ctx.caller.tenant_id}/${await sha256Hex(resolved.data)}`;
      await ctx.env.ARTIFACTS.put(key, resolved.data, {
        httpMetadata: { contentType: resolved.probe.mime },
        customMetadata: { tenant_id: ctx.caller.tenant_id, kind: "input" },
      });
      const stored: StoredMedia = {
        field: ref.field,
        kind: ref.kind,
        param: ref.param,
        transport: resolved.transport,
        https: resolved.https,
        ...(resolved.encoded_length !== undefined ? { encoded_length: resolved.encoded_length } : {}),
        facts: resolved.probe,
        key,
        ...(resolved.origin ? { origin: resolved.origin } : {}),
        ...(ref.role !== undefined ? { role: ref.role } : {}),
      };
      return stored;
    }),
  );
}
