/**
 * URLs of this deployment's own artifacts. A client that gives a task's output URL back as an
 * input names an artifact the service already holds: it is read from storage, never fetched over
 * HTTP (a Worker fetching its own public address is slow at best, and the URL needs the caller's
 * key, which the fetcher does not send).
 */
import { publicBaseUrl } from "../lib/public-url";

const ARTIFACT_ID = "art_[0-9a-f]{32}";

/** An artifact that a URL of this deployment names, with the signature a signed download URL carries. */
export interface OwnArtifactRef {
  artifact_id: string;
  /** For `/files/<id>?expires=…&sig=…` (src/media/signed-outputs.ts): what authorises it for anyone. */
  signature?: { expires: string | undefined; sig: string | undefined };
}

/**
 * Paths under the public base URL that name one artifact, with the id as the first group:
 * `/v1/artifacts/<id>` (the owner's URL, `output.artifacts[].url`) and `/files/<id>` (the signed
 * download URL, `signed_url`).
 */
const OWN_ARTIFACT_PATHS: { pattern: RegExp; signed: boolean }[] = [
  { pattern: new RegExp(`^/v1/artifacts/(${ARTIFACT_ID})$`), signed: false },
  { pattern: new RegExp(`^/files/(${ARTIFACT_ID})$`), signed: true },
];

/**
 * The artifact that `raw` names when it is one of this deployment's artifact URLs: absolute under
 * `PUBLIC_BASE_URL`, or a root-relative path (which can only mean this service: the links of a
 * deployment without a public address are relative). `null` for every other URL.
 */
export function ownArtifactOf(raw: string, env: { PUBLIC_BASE_URL?: string }): OwnArtifactRef | null {
  let url: URL;
  let path: string;
  try {
    if (raw.startsWith("/") && !raw.startsWith("//")) {
      url = new URL(raw, "http://relative.invalid");
      path = url.pathname;
    } else {
      const base = publicBaseUrl(env);
      if (!base) return null;
      url = new URL(raw);
      const origin = new URL(base);
      if (url.username || url.password || url.origin !== origin.origin) return null;
      const prefix = origin.pathname.replace(/\/+$/, "");
      if (!url.pathname.startsWith(`${prefix}/`)) return null;
      path = url.pathname.slice(prefix.length);
    }
  } catch {
    return null;
  }
  for (const { pattern, signed } of OWN_ARTIFACT_PATHS) {
    const id = pattern.exec(path)?.[1];
    if (!id) continue;
    if (!signed) return { artifact_id: id };
    const q = url.searchParams;
    return { artifact_id: id, signature: { expires: q.get("expires") ?? undefined, sig: q.get("sig") ?? undefined } };
  }
  return null;
}
