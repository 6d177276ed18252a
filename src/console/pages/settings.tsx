/** Settings (owners): how many days the tenant's outputs and uploads are kept; whether the request log keeps bodies. */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { getTenantOr404 } from "../../services/accounts";
import { BODY_LOGGING, type BodyLogging, setRequestLogSettings } from "../../services/request-log-settings";
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

const BODY_LOGGING_LABELS: Record<BodyLogging, string> = {
  off: "Off: no bodies",
  redacted: "Redacted: long text and data URIs replaced by their digest",
  full: "Full: bodies as sent, secrets replaced",
};

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
      <h2>Request bodies in the log</h2>
      <form class="stack" method="post" action="/console/settings/request-log">
        {csrfField(c)}
        <label for="body-logging">Keep request and answer bodies</label>
        <select id="body-logging" name="request_body_logging">
          {BODY_LOGGING.map((mode) => (
            <option value={mode} selected={mode === tenant.request_body_logging}>
              {BODY_LOGGING_LABELS[mode]}
            </option>
          ))}
        </select>
        <button type="submit">Save</button>
      </form>
      <p class="muted">
        The request log always keeps each call's route, status, model, attempts and charge. With bodies on, a request's detail
        also shows the first 64 KiB of what was sent and answered; API keys, provider keys and signing secrets are always
        replaced. <em>Redacted</em> also replaces data URIs and text longer than 256 characters by their SHA-256 and size, so
        prompts stay out of the log; a chat call that lost text this way cannot be run again. Entries are kept{" "}
        {tenant.request_log_retention_days} days.
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

  app.post("/settings/request-log", requireRole("settings:manage"), async (c) => {
    const raw = formField(c, "request_body_logging");
    try {
      const tenant = await setRequestLogSettings(
        c.env,
        c.get("member").tenant_id,
        // An absent field is sent on as an empty value, for the service to refuse rather than ignore.
        { request_body_logging: raw ?? "" },
        acting(c),
      );
      return redirectWithFlash(c, "/console/settings", {
        kind: "ok",
        text: `Request bodies in the log: ${tenant.request_body_logging}.`,
      });
    } catch (e) {
      const { flash, status } = refusal(c, e);
      return settingsPage(c, flash, status);
    }
  });
}
