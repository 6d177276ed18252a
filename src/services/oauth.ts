/**
 * The OAuth authorization server as its endpoints and the console reach it: clients, grants,
 * device sign-in, tokens, scopes and the wire rules of its answers.
 */

export type { OAuthGrantCaller } from "../oauth/access";
export { looksLikeAccessToken, resolveAccessToken } from "../oauth/access";
export type { AuthorizationRequest } from "../oauth/authorize-request";
export { AUTHORIZE_PARAMS, checkAuthorizationRequest, redirectTo } from "../oauth/authorize-request";
export { ClientMetadataError, DEVICE_GRANT, registerClient, registrationResponse } from "../oauth/clients";
export { approveDevice, denyDevice, findDevice, startDeviceAuthorization } from "../oauth/device";
export { approveAuthorization, listGrants, revokeGrant, seesAllGrants } from "../oauth/grants";
export { takeOAuthLimit } from "../oauth/limits";
export type { DeviceView } from "../oauth/oauth-records";
export { mcpResourceUrl, oauthOrigin, resourceMetadataUrl } from "../oauth/resource";
export { revokeToken } from "../oauth/revoke";
export { OAUTH_SCOPES, roleScopes, SCOPE_LABELS } from "../oauth/scopes";
export { tokenRequest } from "../oauth/token";
export { displayUserCode, normalizeUserCode } from "../oauth/tokens";
export { CORS, clientIdOf, OAuthError, oauthErrorResponse, oauthJson, readForm } from "../oauth/wire";
