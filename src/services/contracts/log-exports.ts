/** The request log exports' wire shapes (`/v1/log-exports`), one zod schema each. */
import { z } from "@hono/zod-openapi";

/** An HTTP header name (RFC 9110 token), one a collector would take as a credential or a tag. */
const HeaderName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, "an HTTP header name");

export const NewOtlpExport = z
  .object({
    kind: z.literal("otlp"),
    url: z.string().max(2048).openapi({
      description: "The collector's OTLP/HTTP traces URL, posted to as is (e.g. `https://collector.example.com/v1/traces`)",
      example: "https://otel.example.com/v1/traces",
    }),
    headers: z
      .record(
        HeaderName,
        z
          .string()
          .max(1024)
          .regex(/^[\t\x20-\x7e]*$/, "printable ASCII"),
      )
      .optional()
      .openapi({
        description: "Sent with every post (e.g. the collector's API key); stored sealed, never answered back: only their names",
        example: { "x-honeycomb-team": "hcaik_..." },
      }),
  })
  .strict();

export const NewDestinationExport = z
  .object({
    kind: z.literal("destination"),
    destination_id: z.string().min(1).max(64).openapi({ example: "dst_0123456789abcdefghjkmnpqrs" }),
    prefix: z
      .string()
      .max(200)
      .regex(/^[A-Za-z0-9!_.*'()/-]*$/, "letters, digits, / and !-_.*'()")
      .openapi({ description: "Where the files go in the bucket (no leading or trailing slash needed)", example: "request-log" }),
  })
  .strict();

export const NewLogExport = z.discriminatedUnion("kind", [NewOtlpExport, NewDestinationExport]).openapi("NewLogExport");

export const LogExport = z
  .object({
    object: z.literal("log_export"),
    export_id: z.string(),
    kind: z.enum(["otlp", "destination"]),
    mode: z.enum(["live", "test"]).openapi({ description: "The key mode whose requests it exports (the creating key's)" }),
    url: z.string().nullable().openapi({ description: "`otlp`: where the traces are posted" }),
    header_names: z.array(z.string()).openapi({ description: "`otlp`: the custom headers sent (their values are never shown)" }),
    destination_id: z.string().nullable().openapi({ description: "`destination`: the storage destination written to" }),
    prefix: z.string().nullable(),
    created_at: z.string().openapi({ description: "Requests from then on are exported" }),
    last_run_at: z.string().nullable(),
    last_success_at: z.string().nullable().openapi({ description: "The last run that delivered entries" }),
    last_error: z.string().nullable().openapi({ description: "Why the last run failed; null once one succeeds" }),
    consecutive_failures: z.number().int(),
    next_run_at: z.string().openapi({ description: "When it runs next if it has new entries (a retry's time after a failure)" }),
    delivered_count: z.number().int().openapi({ description: "Entries delivered so far" }),
  })
  .openapi("LogExport");

export const LogExportList = z
  .object({ object: z.literal("list"), data: z.array(LogExport), has_more: z.literal(false) })
  .openapi("LogExportList");

export const DeletedLogExport = z
  .object({ object: z.literal("log_export"), export_id: z.string(), deleted: z.literal(true) })
  .openapi("DeletedLogExport");
