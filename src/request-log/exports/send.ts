/**
 * One delivery of a batch of entries: a POST of OTLP/HTTP JSON to a collector, or a JSON Lines
 * object written to the tenant's storage destination with its own S3 signing. Either answers
 * null on success or what went wrong, for `last_error`; retries are the schedule's, never here.
 */

import type { DestinationsAccountSlice } from "../../destinations/account-slice";
import { putObject } from "../../destinations/s3";
import type { Env } from "../../env";
import { classifyFetchError, isTimeout, timedOut } from "../../lib/outbound-cause";
import { unseal } from "../../lib/sealed";
import { checkOutsideUrl, policyFrom } from "../../lib/url-policy";
import { accountSlice } from "../../tenancy/account-slice";
import { responseExcerpt } from "../../webhooks/send";
import type { LogRow } from "../entry";
import type { ExportRecord } from "./export-rows";
import { jsonlBody, jsonlKey } from "./jsonl";
import { tracesBody } from "./otlp";

/** A collector still silent after this failed the run. */
export const POST_TIMEOUT_MS = 15_000;

export async function sendOtlp(env: Env, e: ExportRecord, sealedHeaders: string | null, rows: LogRow[]): Promise<string | null> {
  if (!e.url) return "the export has no url";
  // Checked again at each send, as webhooks are: the configuration may have changed since the create.
  const verdict = checkOutsideUrl(e.url, policyFrom(env));
  if (!verdict.ok) return `url ${verdict.reason}`;
  const custom = sealedHeaders
    ? (JSON.parse(await unseal(env.STORAGE_ENCRYPTION_KEY, sealedHeaders, e.export_id)) as Record<string, string>)
    : {};
  const body = await tracesBody(e.tenant_id, rows);
  try {
    const res = await fetch(verdict.url.toString(), {
      method: "POST",
      headers: { ...custom, "Content-Type": "application/json", "User-Agent": "media-gateway-log-export/1" },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    });
    const excerpt = (await responseExcerpt(res)).slice(0, 200);
    if (res.status >= 200 && res.status < 300) return null;
    return `collector answered HTTP ${res.status}${excerpt ? `: ${excerpt}` : ""}`;
  } catch (err) {
    const target = verdict.url.toString();
    const lost = isTimeout(err) ? timedOut(target, POST_TIMEOUT_MS) : await classifyFetchError(err, target);
    return lost.cause === "timed_out"
      ? `collector did not answer within ${POST_TIMEOUT_MS / 1000} s (timed_out)`
      : `could not connect: ${lost.words}`;
  }
}

export async function sendToDestination(env: Env, e: ExportRecord, rows: LogRow[]): Promise<string | null> {
  if (!e.destination_id) return "the export has no storage destination";
  const target = await accountSlice<DestinationsAccountSlice>(env, e.tenant_id).openStorageDestination(e.destination_id);
  if (!target) return `storage destination ${e.destination_id} no longer exists`;
  const answer = await putObject(target, jsonlKey(e.prefix ?? "", rows), jsonlBody(rows), "application/x-ndjson");
  return answer.ok ? null : `${answer.code}: ${answer.message}`;
}
