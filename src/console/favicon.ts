/**
 * The site's icon (`GET /favicon.ico`, linked from every console page): a 32×32 ICO holding one
 * PNG — a white play mark on the console's blue. Public, cached for a day by browsers and a week
 * by shared caches; it changes only with a deploy, and its ETag says when.
 */
import type { Context } from "hono";
import { fromBase64Url } from "../lib/base64";

const ICO_BASE64 =
  "AAABAAEAICAAAAEAIADSAAAAFgAAAIlQTkcNChoKAAAADUlIRFIAAAAgAAAAIAgGAAAAc3p69AAAAJlJREFUeF7tl0EOgCAMBP2Lj/LHfkvDAaMTDZQugoZN5lK26VyZmHlZt5rw3hEWa9P0eKQPAQ7fZgh8SyCEMy9mAbVEkYBSxCUQw54FiUAIu7nIBGK4k0IuEMPdJ6oJhHD/jv8KcPcJuQB3UsgE2M1FIsCeBZcA30soEuDcg1mAMy8mgRoMgfYCLf8GffyMWklcjp/Dohre2wHwPmlwSYCp6QAAAABJRU5ErkJggg==";

const ICO = fromBase64Url(ICO_BASE64);
const ETAG = '"favicon-1"';

export const FAVICON_PATH = "/favicon.ico";

export function favicon(c: Context) {
  const headers = {
    "Content-Type": "image/x-icon",
    "Cache-Control": "public, max-age=86400, s-maxage=604800",
    ETag: ETAG,
    "X-Content-Type-Options": "nosniff",
  };
  if (c.req.header("If-None-Match") === ETAG) return c.body(null, 304, headers);
  return c.body(ICO, 200, headers);
}
