/**
 * Callback signing keys: every member sees them (never their secrets); developers and owners
 * (`signing_keys:manage`) create one (its secret shown once), rotate it with an overlap during
 * which deliveries carry both signatures, and retire it.
 */
import type { Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { GRACE_LABELS, GRACES, type Grace } from "../../accounts/key-rotation";
import {
  createSigningKey,
  DEFAULT_OVERLAP,
  listSigningKeys,
  retireSigningKey,
  rotateSigningKey,
} from "../../accounts/signing-keys";
import { ApiError } from "../../errors/api-error";
import { can } from "../../people/roles";
import { acting } from "../acting";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { Layout } from "../layout";
import { render } from "../render";
import { CopyScript, SecretOnce, when } from "../secret-once";
import { requireMember, requireRole, wantsJson } from "../session";

const OVERLAP_LABELS: Record<Grace, string> = { ...GRACE_LABELS, none: "none (old secret stops now)" };

async function signingKeysPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const keys = await listSigningKeys(c.env, member.tenant_id, acting(c));
  const manage = can(member.role, "signing_keys:manage");
  return render(
    c,
    <Layout title="Callback signing keys" member={member} active="signing-keys" flash={flash}>
      <p class="muted">
        Name a key in a task's <code>callback_signing_key_id</code>: its callbacks are signed per Standard Webhooks (
        <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>).
      </p>
      {keys.length === 0 ? (
        <p class="muted">No signing keys yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Key id</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Last rotated</th>
              <th scope="col">Previous secret signs until</th>
              {manage ? (
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr data-signing-key-id={k.id} data-status={k.status}>
                <td>
                  <code>{k.id}</code>
                </td>
                <td>
                  <span class="badge">{k.status}</span>
                  {k.retired_at ? <div class="muted">{when(k.retired_at)}</div> : null}
                </td>
                <td>{when(k.created_at)}</td>
                <td>{when(k.rotated_at)}</td>
                <td>{when(k.previous_valid_until)}</td>
                {manage ? (
                  <td>
                    {k.status === "active" ? (
                      <>
                        <form class="inline" method="post" action={`/console/signing-keys/${k.id}/rotate`}>
                          {csrfField(c)}
                          <label class="sr-only" for={`overlap-${k.id}`}>
                            Previous secret keeps signing for
                          </label>
                          <select id={`overlap-${k.id}`} name="overlap" title="How long the previous secret keeps signing">
                            {GRACES.map((g) => (
                              <option value={g} selected={g === DEFAULT_OVERLAP}>
                                {OVERLAP_LABELS[g]}
                              </option>
                            ))}
                          </select>
                          <button type="submit" class="secondary">
                            Rotate
                          </button>
                        </form>
                        <form class="inline" method="post" action={`/console/signing-keys/${k.id}/retire`}>
                          {csrfField(c)}
                          <button type="submit" class="danger" aria-label={`Retire ${k.id}`}>
                            Retire
                          </button>
                        </form>
                      </>
                    ) : null}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {manage ? (
        <form method="post" action="/console/signing-keys">
          {csrfField(c)}
          <button type="submit">Create a signing key</button>
        </form>
      ) : (
        <p class="muted">
          Your role ({member.role}) can see the signing keys; developers and owners create, rotate and retire them.
        </p>
      )}
    </Layout>,
    status,
  );
}

async function refused(c: Context<ConsoleEnv>, e: unknown) {
  if (!(e instanceof ApiError) || e.code === "forbidden" || wantsJson(c.req.header("Accept"))) throw e;
  return signingKeysPage(c, { kind: "error", text: e.message }, e.status as ContentfulStatusCode);
}

function SecretPage(props: { c: Context<ConsoleEnv>; title: string; id: string; secret: string; children?: Child }) {
  return (
    <Layout title={props.title} member={props.c.get("member")} active="signing-keys">
      <SecretOnce id="new-signing-secret" label={`Signing secret of ${props.id}`} value={props.secret} />
      {props.children}
      <p>
        Verify deliveries with any Standard Webhooks library, e.g. <code>new Webhook(secret).verify(body, headers)</code>.{" "}
        <a href="/console/signing-keys">Back to signing keys</a>
      </p>
      <CopyScript />
    </Layout>
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/signing-keys", requireMember, async (c) => signingKeysPage(c, takeFlash(c)));

  app.post("/signing-keys", requireRole("signing_keys:manage"), async (c) => {
    try {
      const key = await createSigningKey(c.env, c.get("member").tenant_id, acting(c));
      return render(c, <SecretPage c={c} title="Signing key created" id={key.id} secret={key.secret} />, 201);
    } catch (e) {
      return refused(c, e);
    }
  });

  app.post("/signing-keys/:id/rotate", requireRole("signing_keys:manage"), async (c) => {
    try {
      const overlap = (await c.req.parseBody()).overlap ?? DEFAULT_OVERLAP;
      if (typeof overlap !== "string" || !(GRACES as readonly string[]).includes(overlap)) {
        throw new ApiError("invalid_request", `overlap: must be one of ${GRACES.join(", ")}.`, {
          param: "overlap",
          details: { errors: [{ loc: ["body", "overlap"], reason: `must be one of ${GRACES.join(", ")}` }] },
        });
      }
      const key = await rotateSigningKey(c.env, c.req.param("id"), overlap as Grace, acting(c));
      return render(
        c,
        <SecretPage c={c} title="Signing key rotated" id={key.id} secret={key.secret}>
          <p>
            {key.previous_valid_until ? (
              <>
                Until <strong>{when(key.previous_valid_until)}</strong> every delivery carries two signatures in{" "}
                <code>webhook-signature</code> (the new secret's and the previous one's), so receivers holding either secret
                accept it; after that, only the new secret signs. Update your receivers before then.
              </>
            ) : (
              <>The previous secret stopped signing now: only the new secret signs from this delivery on.</>
            )}
          </p>
        </SecretPage>,
        201,
      );
    } catch (e) {
      return refused(c, e);
    }
  });

  app.post("/signing-keys/:id/retire", requireRole("signing_keys:manage"), async (c) => {
    try {
      const key = await retireSigningKey(c.env, c.req.param("id"), acting(c));
      return redirectWithFlash(c, "/console/signing-keys", {
        kind: "ok",
        text: `Signing key ${key.id} was retired: new tasks can no longer choose it.`,
      });
    } catch (e) {
      return refused(c, e);
    }
  });
}
