/**
 * /console/storage — the tenant's storage destinations (its own S3-compatible buckets that outputs
 * are delivered to), for owners and developers (`storage:manage`): the list (the key pair as its
 * last 4 characters only), adding one (verified by a probe object; the bucket's refusal is shown
 * on the page), making one the default, deleting one. The services are the REST routes' own.
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { validBody } from "../../http/validation";
import { NewDestinationInput } from "../../services/contracts/storage-destinations";
import {
  createDestination,
  deleteDestination,
  listDestinations,
  setDefaultDestination,
} from "../../services/storage-destinations";
import { tenantScope } from "../../services/tasks";
import type { ConsoleEnv } from "../context";
import { CopyId } from "../copy-id";
import { csrfField } from "../csrf";
import { type Flash, redirectWithFlash, takeFlash } from "../flash";
import { formField } from "../form-body";
import { claimForm, FormOnce } from "../form-once";
import { Layout } from "../layout";
import { showingRefusals } from "../refusal";
import { render } from "../render";
import { actorOf } from "../request-meta";
import { PostButton } from "../row-forms";
import { when } from "../secret-once";
import { requireRole } from "../session";
import { TableHead } from "../table";

const PAGE = "/console/storage";

async function storagePage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const { data } = await listDestinations(c.env, tenantScope(member.tenant_id));
  const field = (name: string) => (status === 200 ? "" : (formField(c, name) ?? ""));
  return render(
    c,
    <Layout title="Storage destinations" member={member} active="storage" flash={flash}>
      <p class="muted">
        Outputs of a task that names <code>output_destination_id</code> (or of every task, for the default destination) are
        written to your bucket as <code>&lt;prefix&gt;/&lt;task_id&gt;/&lt;index&gt;.&lt;ext&gt;</code> before the task succeeds.
        Works with AWS S3, Cloudflare R2, MinIO and Google Cloud Storage's interoperability endpoint.
      </p>
      {data.length === 0 ? (
        <p class="muted">No storage destinations yet.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <TableHead columns={["Destination", "Bucket", "Endpoint", "Prefix", "Access key", "Default", "Verified"]} actions />
            <tbody>
              {data.map((d) => (
                <tr data-destination-id={d.destination_id} data-default={d.default ? "true" : "false"}>
                  <td>
                    <CopyId value={d.destination_id} />
                  </td>
                  <td>
                    {d.bucket} <span class="muted">({d.region})</span>
                  </td>
                  <td>
                    <code>{d.endpoint}</code>
                    {d.path_style ? <div class="muted">path style</div> : null}
                  </td>
                  <td>{d.prefix ? <code>{d.prefix}/</code> : <span class="muted">(root)</span>}</td>
                  <td>
                    <code>…{d.access_key_id_last4}</code> / secret <code>…{d.secret_access_key_last4}</code>
                  </td>
                  <td>{d.default ? <span class="badge">default</span> : ""}</td>
                  <td>{when(d.verified_at)}</td>
                  <td>
                    <PostButton
                      c={c}
                      action={`${PAGE}/${d.destination_id}/default`}
                      kind="secondary"
                      label={d.default ? `No longer the default: ${d.destination_id}` : `Make ${d.destination_id} the default`}
                    >
                      {d.default ? "Unset default" : "Make default"}
                    </PostButton>
                    <PostButton
                      c={c}
                      action={`${PAGE}/${d.destination_id}/delete`}
                      kind="danger"
                      label={`Delete ${d.destination_id}`}
                    >
                      Delete
                    </PostButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Add a destination</h2>
      <form method="post" action={PAGE} class="fields">
        {csrfField(c)}
        <FormOnce />
        <label for="sd-endpoint">Endpoint</label>
        <input
          id="sd-endpoint"
          name="endpoint"
          required
          placeholder="https://s3.eu-west-1.amazonaws.com"
          value={field("endpoint")}
        />
        <label for="sd-bucket">Bucket</label>
        <input id="sd-bucket" name="bucket" required value={field("bucket")} />
        <label for="sd-region">Region</label>
        <input id="sd-region" name="region" required placeholder="eu-west-1 (R2: auto)" value={field("region")} />
        <label for="sd-prefix">Prefix</label>
        <input id="sd-prefix" name="prefix" placeholder="optional, e.g. gateway/outputs" value={field("prefix")} />
        <label for="sd-access-key">Access key id</label>
        <input id="sd-access-key" name="access_key_id" required autocomplete="off" value={field("access_key_id")} />
        <label for="sd-secret">Secret access key</label>
        <input id="sd-secret" name="secret_access_key" type="password" required autocomplete="off" />
        <label class="check">
          <input type="checkbox" name="path_style" value="true" /> Path-style addressing (<code>endpoint/bucket/key</code>)
        </label>
        <label class="check">
          <input type="checkbox" name="default" value="true" /> Make it the default destination
        </label>
        <button type="submit">Verify and add</button>
      </form>
      <p class="muted">
        The secret is sealed at rest and never shown again. Adding writes and deletes a small probe object under the prefix.
      </p>
    </Layout>,
    status,
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/storage", requireRole("storage:manage"), async (c) => storagePage(c, takeFlash(c)));

  app.post("/storage", requireRole("storage:manage"), async (c) =>
    showingRefusals(c, storagePage, async () => {
      // A form sent again (double click, resubmitted page) adds nothing more.
      if (!(await claimForm(c))) return c.redirect(PAGE, 303);
      const prefix = formField(c, "prefix");
      // The REST route's own schema: the same refusals, the same wording.
      const input = validBody(
        NewDestinationInput,
        {
          endpoint: formField(c, "endpoint") ?? "",
          bucket: formField(c, "bucket") ?? "",
          region: formField(c, "region") ?? "",
          ...(prefix ? { prefix } : {}),
          access_key_id: formField(c, "access_key_id") ?? "",
          secret_access_key: formField(c, "secret_access_key") ?? "",
          path_style: formField(c, "path_style") === "true",
          default: formField(c, "default") === "true",
        },
        "/v1/storage-destinations",
      );
      const d = await createDestination(c.env, tenantScope(c.get("member").tenant_id), input, actorOf(c));
      return redirectWithFlash(c, PAGE, { kind: "ok", text: `Destination ${d.destination_id} verified and added.` });
    }),
  );

  app.post("/storage/:id/default", requireRole("storage:manage"), async (c) =>
    showingRefusals(c, storagePage, async () => {
      const id = c.req.param("id");
      const { data } = await listDestinations(c.env, tenantScope(c.get("member").tenant_id));
      const isDefault = !data.find((d) => d.destination_id === id)?.default;
      await setDefaultDestination(c.env, tenantScope(c.get("member").tenant_id), id, isDefault, actorOf(c));
      return redirectWithFlash(c, PAGE, {
        kind: "ok",
        text: isDefault ? `${id} is now the default destination.` : `${id} is no longer the default destination.`,
      });
    }),
  );

  app.post("/storage/:id/delete", requireRole("storage:manage"), async (c) =>
    showingRefusals(c, storagePage, async () => {
      const id = c.req.param("id");
      await deleteDestination(c.env, tenantScope(c.get("member").tenant_id), id, actorOf(c));
      return redirectWithFlash(c, PAGE, { kind: "ok", text: `Destination ${id} was deleted: nothing more is delivered to it.` });
    }),
  );
}
