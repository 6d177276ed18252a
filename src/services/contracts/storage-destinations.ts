/**
 * Storage destinations as every door shows them: what a create takes (the key pair, never shown
 * again), the record (the key pair's last 4 characters only), and a task's deliveries.
 */
import { z } from "@hono/zod-openapi";
import { MAX_DESTINATIONS } from "../../destinations/destination-rows";

export const NewDestinationInput = z
  .object({
    endpoint: z.string().max(2048).openapi({
      description:
        "The store's HTTPS origin (public host, no path): `https://s3.us-east-1.amazonaws.com`, `https://<account>.r2.cloudflarestorage.com`, `https://storage.googleapis.com`, a MinIO server",
      example: "https://s3.eu-west-1.amazonaws.com",
    }),
    bucket: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/, "must be 3–63 lowercase letters, digits, dots, hyphens or underscores")
      .openapi({ example: "my-outputs" }),
    region: z
      .string()
      .regex(/^[a-z0-9-]{1,32}$/, "must be a region name such as us-east-1 (R2: auto)")
      .openapi({ description: "The bucket's region (`auto` for R2)", example: "eu-west-1" }),
    prefix: z
      .string()
      .max(512)
      .regex(/^[^\\]*$/, "must not contain a backslash")
      .refine((p) => !p.split("/").some((s) => s === "." || s === ".."), "must not contain `.` or `..` segments")
      .optional()
      .openapi({ description: "Key prefix: outputs go to `<prefix>/<task_id>/<index>.<ext>`", example: "gateway/outputs" }),
    access_key_id: z.string().min(1).max(256),
    secret_access_key: z.string().min(1).max(512).openapi({ description: "Sealed at rest; never shown again" }),
    path_style: z.boolean().optional().openapi({
      description:
        "Address the bucket as `<endpoint>/<bucket>/…` instead of `<bucket>.<host>/…` (default false; IP endpoints always use it)",
    }),
    default: z.boolean().optional().openapi({
      description: "Make this the tenant's default: creates without `output_destination_id` deliver here (default false)",
    }),
  })
  .strict();

export const DestinationChangeInput = z
  .object({ default: z.boolean().openapi({ description: "Make it the tenant's default, or no longer" }) })
  .strict();

export const StorageDestination = z
  .object({
    object: z.literal("storage_destination"),
    destination_id: z.string(),
    endpoint: z.string(),
    bucket: z.string(),
    region: z.string(),
    prefix: z.string(),
    path_style: z.boolean(),
    default: z.boolean(),
    access_key_id_last4: z.string().openapi({ description: "The last 4 characters of the access key id" }),
    secret_access_key_last4: z.string().openapi({ description: "The last 4 characters of the secret access key" }),
    verified_at: z.string().openapi({ description: "When the probe object was written and deleted" }),
    created_at: z.string(),
  })
  .openapi("StorageDestination");

export const StorageDestinationList = z
  .object({
    object: z.literal("list"),
    data: z.array(StorageDestination),
    has_more: z.literal(false).openapi({ description: `Always false: a tenant has at most ${MAX_DESTINATIONS} destinations` }),
  })
  .openapi("StorageDestinationList");

export const DeletedStorageDestination = z
  .object({ object: z.literal("storage_destination"), destination_id: z.string(), deleted: z.literal(true) })
  .openapi("DeletedStorageDestination");

export const RedeliverInput = z
  .object({
    destination_id: z.string().max(64).optional().openapi({
      description: "Deliver to this destination instead of the task's (default: the task's, only the outputs not yet there)",
    }),
  })
  .strict();

/** One output's copy in a destination, as `output.artifacts[].delivered[]` shows it. */
export const DeliveredCopy = z
  .object({
    destination_id: z.string(),
    key: z.string().openapi({ description: "`<prefix>/<task_id>/<index>.<ext>`" }),
    etag: z.string().nullable().openapi({ description: "The store's ETag of the object written" }),
    bytes: z.number().int(),
  })
  .openapi("DeliveredCopy");

/** A task's delivery to its storage destination. */
export const TaskDelivery = z
  .object({
    destination_id: z.string(),
    status: z.enum(["pending", "delivered", "failed"]).openapi({
      description:
        "`failed`: some outputs could not be written after the retries (the task still succeeded, with the warning `output_delivery_failed`)",
    }),
    attempt_count: z.number().int(),
    last_attempt_at: z.string().nullable(),
    failed: z
      .array(z.object({ index: z.number().int(), key: z.string(), error: z.string().nullable() }))
      .openapi({ description: "The outputs not written, with the store's last answer" }),
  })
  .openapi("TaskDelivery");
