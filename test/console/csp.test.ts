/**
 * The console's Content-Security-Policy: no `'unsafe-inline'` for scripts; each response has its
 * own nonce, and every inline script the console renders (the copy button of a secret shown once,
 * a task page's live updates) carries it.
 */
import { describe, expect, it } from "vitest";
import { admin } from "../helpers/api";
import { freshEmail, signIn, tenantWithOwner } from "../helpers/console";
import { createImage } from "../helpers/tasks";

function scriptSrc(csp: string | null): string {
  return /(?:^|;\s*)script-src ([^;]+)/.exec(csp ?? "")?.[1] ?? "";
}

describe("the console's script policy", () => {
  it("allows only this response's nonce, and every inline script carries it", async () => {
    const email = freshEmail("csp");
    const tenant = await tenantWithOwner(email);
    const browser = await signIn(email);
    const key = await admin(`/admin/v1/tenants/${tenant.tenant_id}/api-keys`, {});
    const created = await createImage(
      { tenant_id: tenant.tenant_id, api_key: key.json.api_key, key_id: key.json.key_id },
      { prompt: "a kite" },
    );
    expect(created.status).toBe(202);

    const keys = await browser.get("/console/keys");
    const token = /action="\/console\/keys"[\s\S]*?name="_form" value="([0-9A-Za-z]{22})"/.exec(keys.text)?.[1] as string;
    const posted = await browser.post("/console/keys", { name: "csp", permissions: "catalog:read", _form: token });
    expect(posted.status).toBe(303);
    const pages = [
      await browser.get("/console"),
      await browser.get(posted.location as string),
      await browser.get(`/console/tasks/${created.json.task_id}`),
      await browser.get("/console/tasks/new?capability=text_to_image"),
    ];
    const nonces = new Set<string>();
    let scripts = 0;
    for (const page of pages) {
      expect(page.status).toBe(200);
      const src = scriptSrc(page.headers.get("Content-Security-Policy"));
      expect(src).not.toContain("unsafe-inline");
      const nonce = /'nonce-([A-Za-z0-9_-]{20,})'/.exec(src)?.[1] as string;
      expect(nonce, src).toBeTruthy();
      nonces.add(nonce);
      for (const tag of page.text.matchAll(/<script\b[^>]*>/g)) {
        // A script file is this origin's own (script-src 'self'); an inline one carries the nonce.
        if (tag[0].includes(" src=")) {
          expect(tag[0]).toBe('<script src="/console/copy.js" defer="">');
          continue;
        }
        scripts++;
        expect(tag[0]).toBe(`<script nonce="${nonce}">`);
      }
    }
    // The secret's copy button and the task page's live updates, at least.
    expect(scripts).toBeGreaterThanOrEqual(2);
    expect(nonces.size).toBe(pages.length);
    // The Copy buttons' script, served from this origin as JavaScript.
    const copy = await browser.get("/console/copy.js");
    expect(copy.status).toBe(200);
    expect(copy.headers.get("Content-Type")).toMatch(/^text\/javascript/);
    expect(copy.text).toContain("navigator.clipboard");
  });
});
