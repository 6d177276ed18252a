/** The tests' side of the fake S3 store (test/destinations/fake-s3.ts): buckets, faults, what it holds. */
import { env } from "cloudflare:workers";

export interface FakeBucket {
  bucket: string;
  region: string;
  access_key_id: string;
  secret_access_key: string;
}

async function control(path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${env.FAKE_S3_URL}/_fake/buckets${path}`, {
    method: body === undefined ? "GET" : "POST",
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "Content-Type": "application/json" } }),
  });
  return res.json();
}

export const newBucket = (region = "us-east-1"): Promise<FakeBucket> => control("", { region });
/** The next `times` object requests to the bucket fail with 503 SlowDown (or 500 InternalError). */
export const failNext = (b: FakeBucket, times: number, status: 500 | 503 = 503) =>
  control(`/${b.bucket}/faults`, { times, status });
export const denyWrites = (b: FakeBucket, deny = true) => control(`/${b.bucket}/deny`, { deny });
export const objectsIn = (
  b: FakeBucket,
): Promise<{ key: string; bytes: number; etag: string; content_type: string; sha256: string }[]> =>
  control(`/${b.bucket}/objects`);
export const requestsTo = (
  b: FakeBucket,
): Promise<{ method: string; key: string; status: number; code: string | null; content_sha256: string | null }[]> =>
  control(`/${b.bucket}/requests`);

/** The body of a destination create for this bucket (path style: the fake is an IP address). */
export function destinationBody(b: FakeBucket, extra: Record<string, unknown> = {}) {
  return {
    endpoint: env.FAKE_S3_URL,
    bucket: b.bucket,
    region: b.region,
    access_key_id: b.access_key_id,
    secret_access_key: b.secret_access_key,
    path_style: true,
    ...extra,
  };
}
