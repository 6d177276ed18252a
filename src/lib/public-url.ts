/**
 * The deployment's own public address, from configuration only (PUBLIC_BASE_URL, one per region).
 * Links in envelopes, artifact URLs, callbacks' bodies and the URLs given to upstreams are built
 * from it and never from a request's Host header, which any client can set. Without it, links are
 * relative paths and nothing that needs an absolute URL is offered (provider webhooks, input URLs).
 */
export function publicBaseUrl(env: { PUBLIC_BASE_URL?: string }): string {
  const configured = env.PUBLIC_BASE_URL?.trim();
  if (!configured) return "";
  try {
    const url = new URL(configured);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return "";
  }
}
