/** The OAuth object's stubs, typed once: the one place an OAuth stub is cast (src/lib/remote.ts says why). */
import type { Env } from "../env";
import type { Remote } from "../lib/remote";
import type { OAuthRpc } from "./oauth-rpc";

export type OAuthStub = Remote<OAuthRpc>;

/** The object of one client (`client:<client_id>`). */
export function clientObject(env: Env, clientId: string): OAuthStub {
  return env.OAUTH.getByName(`client:${clientId}`) as unknown as OAuthStub;
}

/** The object of one device authorization (`device:<USERCODE>`). */
export function deviceObject(env: Env, userCode: string): OAuthStub {
  return env.OAUTH.getByName(`device:${userCode}`) as unknown as OAuthStub;
}
