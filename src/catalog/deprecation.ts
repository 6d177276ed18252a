/**
 * Deprecations announced by providers, as the API shows them: the `Deprecation` (RFC 9745) and
 * `Sunset` (RFC 8594) headers on responses about a deprecated model, a `model_deprecated` warning
 * in the task envelope, and no longer live from the shutdown date.
 */
import type { Deprecation, ModelFile } from "./schema";

const day = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** Whether the model's shutdown date has come (it is then not live, whatever its status says). */
export function isShutDown(model: ModelFile, now = Date.now()): boolean {
  const at = model.deprecation?.shutdown_at;
  return at !== undefined && day(at) <= now;
}

/** The headers for a response about `model`; none when it is not deprecated. */
export function deprecationHeaders(model: ModelFile): Record<string, string> {
  const d = model.deprecation;
  if (!d) return {};
  const headers: Record<string, string> = { Deprecation: `@${Math.floor(day(d.announced_at) / 1000)}` };
  if (d.shutdown_at) headers.Sunset = new Date(day(d.shutdown_at)).toUTCString();
  if (d.replacement) headers.Link = `</v1/catalog/models/${d.replacement}>; rel="successor-version"`;
  return headers;
}

export function deprecationWarning(model: ModelFile): { code: string; message: string; field: string }[] {
  const d: Deprecation | undefined = model.deprecation;
  if (!d) return [];
  const until = d.shutdown_at ? ` and shuts down on ${d.shutdown_at}` : "";
  const instead = d.replacement ? `; use ${d.replacement} instead` : "";
  return [{ code: "model_deprecated", message: `${model.model} is deprecated${until}${instead}. ${d.note}`, field: "/model" }];
}
