/**
 * The device page (`/console/device`, RFC 8628 §3.3): a member types the code their device shows
 * (or follows its link, which carries it), sees which application asks, with what scopes and in
 * which tenant, and approves or denies. Lookups are limited per member, so codes cannot be guessed.
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "../../errors/api-error";
import type { DeviceView } from "../../services/oauth";
import { approveDevice, denyDevice, displayUserCode, findDevice, normalizeUserCode, takeOAuthLimit } from "../../services/oauth";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { formField } from "../form-body";
import { Layout } from "../layout";
import { refusal } from "../refusal";
import { render } from "../render";
import { actorOf } from "../request-meta";
import { requireMemberReturning } from "../return-to";
import { requireMember } from "../session";
import { ClientName, ScopeList } from "./oauth-consent";

function CodeForm(props: { value?: string }) {
  return (
    <form class="stack" method="get" action="/console/device">
      <label for="user_code">Code shown on your device</label>
      <input
        id="user_code"
        name="user_code"
        type="text"
        autocomplete="off"
        autocapitalize="characters"
        spellcheck={false}
        placeholder="XXXX-XXXX"
        maxlength={20}
        required
        value={props.value ?? ""}
        autofocus
      />
      <button type="submit">Continue</button>
    </form>
  );
}

function entryPage(c: Context<ConsoleEnv>, opts: { flash?: Flash; value?: string; status?: ContentfulStatusCode } = {}) {
  return render(
    c,
    <Layout title="Connect a device" member={c.get("member")} active="connections" flash={opts.flash}>
      <p>Enter the code that the application on your device shows you.</p>
      <CodeForm value={opts.value} />
    </Layout>,
    opts.status ?? 200,
  );
}

function confirmPage(c: Context<ConsoleEnv>, device: DeviceView) {
  const member = c.get("member");
  const code = displayUserCode(device.user_code);
  return render(
    c,
    <Layout title="Connect a device" member={member} active="connections">
      <p>
        <ClientName name={device.client_name} clientId={device.client_id} /> (code <code>{code}</code>) asks to act for you,{" "}
        {member.email}, in the tenant <strong>{member.tenant_name}</strong>.
      </p>
      <p>It will be able to:</p>
      <ScopeList asked={device.scopes} member={member} />
      <p class="muted">
        Approve only if you started this on your own device and its code is <code>{code}</code>. You can revoke it later under{" "}
        <a href="/console/connections">Connected apps</a>.
      </p>
      <form class="inline" method="post" action="/console/device/approve">
        {csrfField(c)}
        <input type="hidden" name="user_code" value={code} />
        <button type="submit">Approve</button>
      </form>{" "}
      <form class="inline" method="post" action="/console/device/deny">
        {csrfField(c)}
        <input type="hidden" name="user_code" value={code} />
        <button type="submit" class="secondary">
          Deny
        </button>
      </form>
    </Layout>,
  );
}

async function typedCode(c: Context<ConsoleEnv>): Promise<string> {
  const value = formField(c, "user_code");
  return typeof value === "string" ? value : "";
}

/**
 * Every use of a typed code (looking it up, approving, denying) counts against the member's
 * limit, so that no door lets codes be guessed faster than the others.
 */
async function overLimit(c: Context<ConsoleEnv>, typed: string) {
  const taken = await takeOAuthLimit(c.env, "user_code", c.get("member").user_id);
  if (taken.allowed) return null;
  c.header("Retry-After", String(taken.retry_after));
  return entryPage(c, {
    value: typed,
    status: 429,
    flash: { kind: "error", text: `Too many codes tried; try again in ${Math.ceil(taken.retry_after / 60)} minutes.` },
  });
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/device", requireMemberReturning, async (c) => {
    const typed = c.req.query("user_code");
    if (typed === undefined || typed.trim() === "") return entryPage(c, { flash: takeFlash(c) });
    const limited = await overLimit(c, typed);
    if (limited) return limited;
    const device = normalizeUserCode(typed) ? await findDevice(c.env, typed) : null;
    if (!device) {
      return entryPage(c, {
        value: typed,
        status: 404,
        flash: { kind: "error", text: "That code is not valid or has expired." },
      });
    }
    if (device.status !== "pending") {
      return entryPage(c, {
        status: 409,
        flash: { kind: "error", text: "That code was already used: it was approved or denied. Start again on your device." },
      });
    }
    return confirmPage(c, device);
  });

  app.post("/device/approve", requireMember, async (c) => {
    const typed = await typedCode(c);
    const limited = await overLimit(c, typed);
    if (limited) return limited;
    try {
      const { view } = await approveDevice(c.env, c.get("member"), typed, actorOf(c));
      return redirectWithFlash(c, "/console/device", {
        kind: "ok",
        text: `Approved: ${view.client_name} is connected to ${view.tenant_name}. You can go back to your device.`,
      });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      const { flash, status } = refusal(c, e);
      return entryPage(c, { flash, status });
    }
  });

  app.post("/device/deny", requireMember, async (c) => {
    const typed = await typedCode(c);
    const limited = await overLimit(c, typed);
    if (limited) return limited;
    try {
      const view = await denyDevice(c.env, c.get("member"), typed, actorOf(c));
      return redirectWithFlash(c, "/console/device", { kind: "ok", text: `Denied: ${view.client_name} was not connected.` });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      const { flash, status } = refusal(c, e);
      return entryPage(c, { flash, status });
    }
  });
}
