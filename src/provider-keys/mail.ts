/** The one mail about a tenant's provider key: the provider refused it on a task, so it is no longer used. */
import type { Env } from "../env";
import { mailSender } from "../mail/sender";

export async function mailOwnersKeyRejected(
  env: Env,
  owners: { email: string }[],
  tenantName: string,
  provider: string,
  reason: string,
): Promise<void> {
  for (const o of owners) {
    await mailSender(env).send({
      to: o.email,
      subject: `Your ${provider} key was refused by ${provider}`,
      text:
        `${provider} refused the API key ${tenantName} added for it (${reason}), so it is marked invalid and ` +
        "tasks no longer use it. Replace it on the Provider keys page of the console " +
        `(or PUT /v1/provider-keys/${provider}); until then tasks run as its mode allows.`,
    });
  }
}
