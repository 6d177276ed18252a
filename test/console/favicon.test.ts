/** The site's icon: an ICO at /favicon.ico, cached, and linked from the console's pages. */

import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE } from "../helpers/api";
import { freshEmail, signIn, tenantWithOwner } from "../helpers/console";

const get = (headers: Record<string, string> = {}) => exports.default.fetch(new Request(`${BASE}/favicon.ico`, { headers }));

describe("/favicon.ico", () => {
  it("is an ICO holding a 32×32 PNG, public and cached, revalidated by its ETag", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/x-icon");
    expect(res.headers.get("Cache-Control")).toMatch(/^public, max-age=\d+/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), one image of 32×32 whose data is a PNG at the offset given.
    expect([...bytes.slice(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
    expect([bytes[6], bytes[7]]).toEqual([32, 32]);
    const offset = new DataView(bytes.buffer).getUint32(18, true);
    expect([...bytes.slice(offset, offset + 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const etag = res.headers.get("ETag") as string;
    expect(etag).toBeTruthy();
    const again = await get({ "If-None-Match": etag });
    expect(again.status).toBe(304);
  });

  it("is linked from the console's pages, signed in or not", async () => {
    const email = freshEmail("icon");
    await tenantWithOwner(email);
    const browser = await signIn(email);
    for (const page of [await browser.get("/console"), await browser.get("/console/keys")]) {
      expect(page.text).toContain('<link rel="icon" href="/favicon.ico"');
    }
    const signInPage = await exports.default.fetch(new Request(`${BASE}/console/sign-in`));
    expect(await signInPage.text()).toContain('<link rel="icon" href="/favicon.ico"');
  });
});
