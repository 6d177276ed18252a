/**
 * The page that shows a new key once, after it is created or rotated (src/console/secret-once.tsx).
 */
import type { Context } from "hono";
import { GRACE_LABELS, type Grace } from "../../services/accounts";
import type { ConsoleEnv } from "../context";
import { Layout } from "../layout";
import { CopyScript, SecretOnce, when } from "../secret-once";

/** What the created page shows, carried from the form's handler in the one-time stash. */
export type NewKey =
  | { kind: "created"; api_key: string; name: string | null; key_id: string; mode: string; permissions: string[] }
  | {
      kind: "rotated";
      api_key: string;
      name: string | null;
      key_id: string;
      old_key_id: string;
      grace: Grace;
      old_expires_at: string | null;
    };

export const CREATED_PATH = "/console/keys/created";

export function NewKeyPage(props: { c: Context<ConsoleEnv>; shown: NewKey | undefined }) {
  const { c, shown } = props;
  const member = c.get("member");
  if (!shown) {
    return (
      <Layout title="No new key to show" member={member} active="keys">
        <p>
          A new key is shown once, on the page that follows its form, and this one was shown already (or its form was sent again,
          which creates nothing more). Its key is listed on <a href="/console/keys">API keys</a>; if you did not keep it, revoke
          it there and create another.
        </p>
      </Layout>
    );
  }
  const title =
    shown.kind === "created" ? `Key “${shown.name ?? shown.key_id}” created` : `Key “${shown.name ?? shown.key_id}” rotated`;
  return (
    <Layout title={title} member={member} active="keys">
      <SecretOnce id="new-api-key" label="Your new API key" value={shown.api_key} />
      {shown.kind === "created" ? (
        <p class="muted">
          {shown.mode} key <code>{shown.key_id}</code> with {shown.permissions.join(", ")}.
        </p>
      ) : (
        <p>
          {shown.grace === "none" ? (
            <>
              The old key <code>{shown.old_key_id}</code> stopped working now.
            </>
          ) : (
            <>
              The old key <code>{shown.old_key_id}</code> keeps working until <strong>{when(shown.old_expires_at)}</strong> (
              {GRACE_LABELS[shown.grace]}), then stops: deploy the new key before then.
            </>
          )}
        </p>
      )}
      <p>
        Send it as <code>Authorization: Bearer &lt;key&gt;</code>. <a href="/console/keys">Back to API keys</a>
      </p>
      <CopyScript nonce={c.get("nonce")} />
    </Layout>
  );
}
