import type { InterfaceFile, ModelFile } from "../schema";
import { ratio } from "./canvas";
import type { CandidateFailure, RequestMedia } from "./types";

/** Media inputs against the card's input specs: kinds, counts, transports, formats, sizes, shapes, durations. */
export function checkMedia(model: ModelFile, card: InterfaceFile, media: RequestMedia[]): CandidateFailure[] {
  const failures: CandidateFailure[] = [];
  const id = model.model;
  const groups = new Map<string, RequestMedia[]>();
  for (const m of media) groups.set(`${m.field}|${m.kind}`, [...(groups.get(`${m.field}|${m.kind}`) ?? []), m]);
  for (const [key, items] of groups) {
    const [field, kind] = key.split("|") as [string, string];
    const spec = card.inputs.find((s) => s.field === field && s.kind === kind);
    const first = items[0] as RequestMedia;
    if (!spec) {
      failures.push({
        model: id,
        code: `unsupported_${kind}_input`,
        param: first.param,
        message: `${id} does not take ${kind} input in '${field}'.`,
        received: kind,
        supported: card.inputs.filter((s) => s.field === field).map((s) => s.kind),
        error: "unsupported_input_modality",
      });
      continue;
    }
    if (items.length > spec.public_max_count || items.length < spec.minimum_count) {
      failures.push({
        model: id,
        code: "unsupported_input_count",
        param: `/${field}`,
        message: `${id} takes ${spec.minimum_count} to ${spec.public_max_count} ${kind} inputs in '${field}'; got ${items.length}.`,
        received: items.length,
        supported: { minimum: spec.minimum_count, maximum: spec.public_max_count },
        error: "unsupported_option",
      });
    }
    for (const m of items) {
      const f = m.facts;
      const fail = (code: string, error: CandidateFailure["error"], message: string, received: unknown, supported: unknown) =>
        failures.push({ model: id, code, param: m.param, message, received, supported, error });
      const h = spec.hard_constraints;
      if (!spec.transport.accepted_kinds.includes(m.transport)) {
        fail(
          "unsupported_transport",
          "unsupported_option",
          `${id} does not accept ${m.transport} inputs.`,
          m.transport,
          spec.transport.accepted_kinds,
        );
      } else if (m.transport === "url" && spec.transport.https_only && !m.https) {
        fail("https_required", "unsupported_option", `${id} takes https URLs only.`, "http", "https");
      } else if (
        m.transport === "data_uri" &&
        spec.transport.data_uri_max_encoded_length &&
        (m.encoded_length ?? 0) > spec.transport.data_uri_max_encoded_length
      ) {
        fail("data_uri_too_long", "media_too_large", `The data URI is longer than ${id} accepts.`, m.encoded_length, {
          max: spec.transport.data_uri_max_encoded_length,
        });
      }
      if (!spec.formats.includes(f.mime)) {
        fail("unsupported_media_type", "unsupported_media_type", `${id} does not accept ${f.mime}.`, f.mime, spec.formats);
        continue;
      }
      if (f.bytes > h.max_bytes)
        fail("media_too_large", "media_too_large", `The input is larger than ${id} accepts.`, f.bytes, {
          max_bytes: h.max_bytes,
        });
      if (f.width && f.height) {
        const lo = Math.min(f.width, f.height);
        const hi = Math.max(f.width, f.height);
        if (h.edge_pixels && (lo < h.edge_pixels.minimum || hi > h.edge_pixels.maximum)) {
          fail(
            "unsupported_edge_pixels",
            "unsupported_option",
            `${f.width}x${f.height} is outside ${id}'s edge limits.`,
            `${f.width}x${f.height}`,
            h.edge_pixels,
          );
        }
        const r = f.width / f.height;
        if (h.aspect_ratio && (r < ratio(h.aspect_ratio.minimum) - 1e-9 || r > ratio(h.aspect_ratio.maximum) + 1e-9)) {
          fail(
            "unsupported_aspect_ratio",
            "unsupported_option",
            `${f.width}:${f.height} is outside ${id}'s input aspect bounds.`,
            `${f.width}:${f.height}`,
            h.aspect_ratio,
          );
        }
      }
      if (h.alpha === "rejected" && f.alpha)
        fail("unsupported_alpha", "unsupported_option", `${id} does not accept images with transparency.`, true, false);
      if (f.animated && spec.animation?.[f.mime] === "rejected") {
        fail("unsupported_animation", "unsupported_option", `${id} does not accept animated ${f.mime}.`, "animated", "still");
      }
      const d = f.duration_seconds;
      if (
        d !== undefined &&
        ((h.min_duration_seconds && d < h.min_duration_seconds) || (h.max_duration_seconds && d > h.max_duration_seconds))
      ) {
        fail("unsupported_duration", "unsupported_option", `A ${d.toFixed(2)} s input is outside ${id}'s limits.`, d, {
          minimum: h.min_duration_seconds,
          maximum: h.max_duration_seconds,
        });
      }
    }
  }
  for (const spec of card.inputs) {
    if (spec.minimum_count > 0 && !media.some((m) => m.field === spec.field && m.kind === spec.kind)) {
      failures.push({
        model: id,
        code: `missing_${spec.field}`,
        param: `/${spec.field}`,
        message: `${id} needs at least ${spec.minimum_count} ${spec.kind} input(s) in '${spec.field}'.`,
        received: 0,
        supported: { minimum: spec.minimum_count },
        error: "unsupported_option",
      });
    }
  }
  return failures;
}
