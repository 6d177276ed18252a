/** Settings (owners): how many days the tenant's outputs and uploads are kept. */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { getTenantOr404 } from "../../services/accounts";
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS, setTenantSettings } from "../../services/retention";
import { acting } from "../acting";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { formField } from "../form-body";
import { Layout } from "../layout";
import { refusal } from "../refusal";
import { render } from "../render";
import { requireRole } from "../session";

async function settingsPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const tenant = await getTenantOr404(c.env, member.tenant_id);
  return render(
    c,
    <Layout title="Settings" member={member} active="settings" flash={flash}>
      <h2>Output retention</h2>
      <form class="stack" method="post" action="/console/settings/retention">
        {csrfField(c)}
        <label for="retention-days">Days outputs and uploads are kept</label>
        <input
          id="retention-days"
          name="output_retention_days"
          type="number"
          min={MIN_RETENTION_DAYS}
          max={MAX_RETENTION_DAYS}
          step={1}
          required
          value={String(tenant.output_retention_days)}
        />
        <button type="submit">Save</button>
      </form>
      <p class="muted">
        Each output is deleted this many days after it is stored, and each upload this many days after it is sent. A request may
        ask for fewer days (<code>output_retention_days</code>), never more. A change applies to what is stored from then on.
      </p>
    </Layout>,
    status,
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/settings", requireRole("settings:manage"), async (c) => settingsPage(c, takeFlash(c)));

  app.post("/settings/retention", requireRole("settings:manage"), async (c) => {
    const raw = formField(c, "output_retention_days");
    const text = typeof raw === "string" ? raw.trim() : "";
    // A number only when the field is one; anything else is left for the service to refuse.
    const days = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
    try {
      const tenant = await setTenantSettings(c.env, c.get("member").tenant_id, { output_retention_days: days }, acting(c));
      return redirectWithFlash(c, "/console/settings", {
        kind: "ok",
        text: `Outputs and uploads are now kept ${tenant.output_retention_days} days.`,
      });
    } catch (e) {
      const { flash, status } = refusal(c, e);
      return settingsPage(c, flash, status);
    }
  });
}
