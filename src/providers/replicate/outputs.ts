/**
 * A succeeded prediction's output as the service's result. flux-2-pro's output is one URI string;
 * other models give an array of them. The URLs are returned as they are: the service downloads
 * them before it reports success, which matters because Replicate deletes outputs after an hour.
 * Usage stays empty: the service measures image count and pixels from the stored files.
 */
import type { ProviderConfig } from "../config";
import { malformed } from "../http";
import type { ProviderOutput, ProviderResult } from "../types";
import { ProviderError } from "../types";
import { authHeaders } from "./client";
import type { Prediction } from "./predictions";

function urlsOf(output: unknown): string[] {
  if (typeof output === "string") return [output];
  if (Array.isArray(output)) return output.flatMap(urlsOf);
  return [];
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** A data URI (what Replicate may inline for small files) decoded to bytes, or null. */
function dataUri(uri: string): { bytes: Uint8Array; content_type: string } | null {
  const m = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)?(?:;[^,;]*)*;base64,(.*)$/is.exec(uri);
  if (!m) return null;
  try {
    return {
      bytes: Uint8Array.from(atob(m[2] as string), (c) => c.charCodeAt(0)),
      content_type: m[1] ?? "application/octet-stream",
    };
  } catch {
    return null;
  }
}

export function resultOf(prediction: Prediction, config: ProviderConfig): ProviderResult {
  if (prediction.status !== "succeeded") {
    throw new ProviderError("model_request_failed", `replicate: the prediction is "${prediction.status}", it has no result.`, {
      retryable: true,
    });
  }
  const found = urlsOf(prediction.output);
  if (found.length === 0) {
    if (prediction.data_removed) {
      throw new ProviderError(
        "model_output_invalid",
        "replicate: the outputs were deleted before they were copied (Replicate keeps them one hour).",
        {
          retryable: false,
        },
      );
    }
    throw malformed(config, "a succeeded prediction without an output URL");
  }
  const outputs: ProviderOutput[] = [];
  for (const [index, url] of found.entries()) {
    const inline = dataUri(url);
    if (inline) {
      outputs.push({ kind: "image", index, ...inline });
      continue;
    }
    if (!/^https?:\/\//i.test(url)) throw malformed(config, "an output that is not a URL");
    // The reference says file outputs may need the Authorization header. It is sent only to
    // Replicate's own API host; delivery hosts (replicate.delivery) serve without it, and the
    // token must never reach any other host.
    outputs.push({ kind: "image", index, url, ...(sameOrigin(url, config.baseUrl) ? { headers: authHeaders(config) } : {}) });
  }
  const metrics = prediction.metrics ?? {};
  return {
    outputs,
    usage: {},
    metadata: {
      ...(typeof metrics.predict_time === "number" ? { predict_time: metrics.predict_time } : {}),
      ...(typeof metrics.total_time === "number" ? { total_time: metrics.total_time } : {}),
    },
  };
}
