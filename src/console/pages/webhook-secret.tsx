/**
 * The page that shows an endpoint's new signing secret, once, after it is added or rotated.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../context";
import { Layout } from "../layout";
import { CopyScript, SecretOnce, when } from "../secret-once";
import { HOME } from "./webhook-common";

export interface NewSecret {
  kind: "created" | "rotated";
  endpoint_id: string;
  url: string;
  secret: string;
  previous_valid_until: string | null;
}

export function SecretPage(props: { c: Context<ConsoleEnv>; shown: NewSecret | undefined }) {
  const { c, shown } = props;
  const member = c.get("member");
  if (!shown) {
    return (
      <Layout title="No new secret to show" member={member} active="webhooks">
        <p>
          An endpoint's secret is shown once, on the page that follows its form, and this one was shown already. If you did not
          keep it, rotate the endpoint's secret on <a href={HOME}>webhooks</a>.
        </p>
      </Layout>
    );
  }
  return (
    <Layout title={shown.kind === "created" ? "Endpoint added" : "Endpoint secret rotated"} member={member} active="webhooks">
      <SecretOnce id="new-webhook-secret" label={`Signing secret of ${shown.endpoint_id} (${shown.url})`} value={shown.secret} />
      {shown.kind === "rotated" ? (
        <p>
          {shown.previous_valid_until ? (
            <>
              Until <strong>{when(shown.previous_valid_until)}</strong> every message carries two signatures, so receivers holding
              either secret accept it.
            </>
          ) : (
            <>The previous secret stopped signing now.</>
          )}
        </p>
      ) : null}
      <p>
        Verify deliveries with any Standard Webhooks library, e.g. <code>new Webhook(secret).verify(body, headers)</code>.{" "}
        <a href={`${HOME}/endpoints/${shown.endpoint_id}`}>Back to the endpoint</a>
      </p>
      <CopyScript nonce={c.get("nonce")} />
    </Layout>
  );
}
