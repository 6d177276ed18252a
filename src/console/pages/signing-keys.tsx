/**
 * Callback signing keys: every member sees them (never their secrets); developers and owners
 * (`signing_keys:manage`) create one (its secret shown once), rotate it with an overlap during
 * which deliveries carry both signatures, and retire it. Creating and rotating answer with a
 * redirect to /console/signing-keys/created, which shows the secret once
 * (src/console/secret-once.tsx); each form acts once however often it is sent.
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  createSigningKey,
  DEFAULT_OVERLAP,
  GRACE_LABELS,
  type Grace,
  listSigningKeys,
  retireSigningKey,
  rotateSigningKey,
} from "../../services/accounts";
import { can } from "../../services/people";
import { acting } from "../acting";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { claimForm, FormOnce } from "../form-once";
import { Layout } from "../layout";
import { showingRefusals } from "../refusal";
import { render } from "../render";
import { PostButton, postedGrace, RotateForm } from "../row-forms";
import { CopyScript, SecretOnce, stashSecret, takeSecret, when } from "../secret-once";
import { requireMember, requireRole } from "../session";
import { TableHead } from "../table";

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
        <div class="table-scroll">
          <table>
            <TableHead
              columns={["Key id", "Status", "Created", "Last rotated", "Previous secret signs until"]}
              actions={manage}
            />
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
                          <RotateForm
                            c={c}
                            action={`/console/signing-keys/${k.id}/rotate`}
                            name="overlap"
                            rowId={k.id}
                            label="Previous secret keeps signing for"
                            title="How long the previous secret keeps signing"
                            labels={OVERLAP_LABELS}
                            selected={DEFAULT_OVERLAP}
                          />
                          <PostButton
                            c={c}
                            action={`/console/signing-keys/${k.id}/retire`}
                            kind="danger"
                            label={`Retire ${k.id}`}
                          >
                            Retire
                          </PostButton>
                        </>
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {manage ? (
        <form method="post" action="/console/signing-keys">
          {csrfField(c)}
          <FormOnce />
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

/** What the created page shows, carried from the form's handler in the one-time stash. */
interface NewSecret {
  kind: "created" | "rotated";
  id: string;
  secret: string;
  previous_valid_until: string | null;
}

export const SECRET_PATH = "/console/signing-keys/created";

function SecretPage(props: { c: Context<ConsoleEnv>; shown: NewSecret | undefined }) {
  const { c, shown } = props;
  const member = c.get("member");
  if (!shown) {
    return (
      <Layout title="No new secret to show" member={member} active="signing-keys">
        <p>
          A signing secret is shown once, on the page that follows its form, and this one was shown already (or its form was sent
          again, which creates nothing more). Its key is listed on <a href="/console/signing-keys">signing keys</a>; if you did
          not keep its secret, rotate it there.
        </p>
      </Layout>
    );
  }
  return (
    <Layout
      title={shown.kind === "created" ? "Signing key created" : "Signing key rotated"}
      member={member}
      active="signing-keys"
    >
      <SecretOnce id="new-signing-secret" label={`Signing secret of ${shown.id}`} value={shown.secret} />
      {shown.kind === "rotated" ? (
        <p>
          {shown.previous_valid_until ? (
            <>
              Until <strong>{when(shown.previous_valid_until)}</strong> every delivery carries two signatures in{" "}
              <code>webhook-signature</code> (the new secret's and the previous one's), so receivers holding either secret accept
              it; after that, only the new secret signs. Update your receivers before then.
            </>
          ) : (
            <>The previous secret stopped signing now: only the new secret signs from this delivery on.</>
          )}
        </p>
      ) : null}
      <p>
        Verify deliveries with any Standard Webhooks library, e.g. <code>new Webhook(secret).verify(body, headers)</code>.{" "}
        <a href="/console/signing-keys">Back to signing keys</a>
      </p>
      <CopyScript nonce={c.get("nonce")} />
    </Layout>
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/signing-keys", requireMember, async (c) => signingKeysPage(c, takeFlash(c)));

  // The page a create or rotate form redirects to: the secret once, never again on reload.
  app.get("/signing-keys/created", requireMember, async (c) =>
    render(c, <SecretPage c={c} shown={await takeSecret<NewSecret>(c, SECRET_PATH)} />),
  );

  app.post("/signing-keys", requireRole("signing_keys:manage"), async (c) =>
    showingRefusals(c, signingKeysPage, async () => {
      // A form sent again (double click, resubmitted page) creates nothing more.
      if (!(await claimForm(c))) return c.redirect(SECRET_PATH, 303);
      const key = await createSigningKey(c.env, c.get("member").tenant_id, acting(c));
      await stashSecret(c, SECRET_PATH, {
        kind: "created",
        id: key.id,
        secret: key.secret,
        previous_valid_until: null,
      } satisfies NewSecret);
      return c.redirect(SECRET_PATH, 303);
    }),
  );

  app.post("/signing-keys/:id/rotate", requireRole("signing_keys:manage"), async (c) =>
    showingRefusals(c, signingKeysPage, async () => {
      const overlap = postedGrace(c, "overlap", DEFAULT_OVERLAP);
      if (!(await claimForm(c))) return c.redirect(SECRET_PATH, 303);
      const key = await rotateSigningKey(c.env, c.req.param("id"), overlap, acting(c));
      await stashSecret(c, SECRET_PATH, {
        kind: "rotated",
        id: key.id,
        secret: key.secret,
        previous_valid_until: key.previous_valid_until ?? null,
      } satisfies NewSecret);
      return c.redirect(SECRET_PATH, 303);
    }),
  );

  app.post("/signing-keys/:id/retire", requireRole("signing_keys:manage"), async (c) =>
    showingRefusals(c, signingKeysPage, async () => {
      const key = await retireSigningKey(c.env, c.req.param("id"), acting(c));
      return redirectWithFlash(c, "/console/signing-keys", {
        kind: "ok",
        text: `Signing key ${key.id} was retired: new tasks can no longer choose it.`,
      });
    }),
  );
}
