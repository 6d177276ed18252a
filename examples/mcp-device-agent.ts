/**
 * An agent that can only use the device flow (no browser, no redirect): given nothing but the
 * service's MCP URL it discovers the authorization server, registers itself, asks the user to
 * approve a code in the console, then generates an image and a video with the MCP tools.
 *
 *   npx tsx examples/mcp-device-agent.ts https://us.api.example.com/mcp
 *
 * Discovery, registration and the MCP calls use the official MCP client SDK; the device grant
 * (RFC 8628), which the SDK does not implement, is the two requests below.
 */
import {
  Client,
  discoverOAuthServerInfo,
  extractWWWAuthenticateParams,
  registerClient,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
const SCOPES = "catalog:read tasks:read tasks:write";

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval?: number;
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function form(url: string, fields: Record<string, string>) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
    body: new URLSearchParams(fields),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

/** RFC 8628 §3.4–3.5: poll at the interval, five seconds slower after each `slow_down`. */
async function pollForToken(tokenEndpoint: string, clientId: string, device: DeviceAuthorization, resource: string) {
  let interval = (device.interval ?? 5) * 1000;
  const giveUpAt = Date.now() + device.expires_in * 1000;
  while (Date.now() < giveUpAt) {
    await sleep(interval);
    const { status, json } = await form(tokenEndpoint, {
      grant_type: DEVICE_GRANT,
      device_code: device.device_code,
      client_id: clientId,
      resource,
    });
    if (status === 200) return json as { access_token: string; refresh_token?: string; scope?: string };
    if (json.error === "authorization_pending") continue;
    if (json.error === "slow_down") {
      interval += 5000;
      continue;
    }
    throw new Error(`authorization failed: ${json.error} ${json.error_description ?? ""}`.trim());
  }
  throw new Error("the code expired before it was approved");
}

async function signIn(mcpUrl: URL) {
  // The server names its protected-resource metadata in the 401 challenge.
  const probe = await fetch(mcpUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "server/discover", params: {} }),
  });
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(probe);
  const info = await discoverOAuthServerInfo(mcpUrl, resourceMetadataUrl ? { resourceMetadataUrl } : {});
  const metadata = info.authorizationServerMetadata as Record<string, any> | undefined;
  const deviceEndpoint = metadata?.device_authorization_endpoint as string | undefined;
  if (!metadata || !deviceEndpoint) throw new Error("the authorization server offers no device authorization");
  const resource = info.resourceMetadata?.resource ?? mcpUrl.href;

  const client = await registerClient(info.authorizationServerUrl, {
    metadata: metadata as never,
    clientMetadata: {
      client_name: "Device agent example",
      redirect_uris: [],
      grant_types: [DEVICE_GRANT, "refresh_token"],
      token_endpoint_auth_method: "none",
    } as never,
  });

  const started = await form(deviceEndpoint, { client_id: client.client_id, scope: SCOPES, resource });
  if (started.status !== 200) throw new Error(`device authorization refused: ${JSON.stringify(started.json)}`);
  const device = started.json as DeviceAuthorization;
  log(`To sign in, open ${device.verification_uri_complete ?? device.verification_uri}`);
  log(`and check that it shows the code ${device.user_code}.`);
  const tokens = await pollForToken(metadata.token_endpoint as string, client.client_id, device, resource);
  log(`Signed in (scopes: ${tokens.scope ?? SCOPES}).`);
  return tokens.access_token;
}

async function generate(client: Client, tool: string, args: Record<string, unknown>) {
  const created = await client.callTool({ name: tool, arguments: args });
  if (created.isError) throw new Error(`${tool}: ${JSON.stringify(created.structuredContent)}`);
  let task = created.structuredContent as { task_id: string; status: string; output?: any };
  log(`${tool}: task ${task.task_id} ${task.status}`);
  while (!["succeeded", "failed", "canceled"].includes(task.status)) {
    const waited = await client.callTool({ name: "wait_for_task", arguments: { task_id: task.task_id, timeout_seconds: 30 } });
    if (waited.isError) throw new Error(`wait_for_task: ${JSON.stringify(waited.structuredContent)}`);
    task = waited.structuredContent as typeof task;
  }
  if (task.status !== "succeeded") throw new Error(`${tool}: task ${task.task_id} ended ${task.status}`);
  const links = await outputsOf(client, task.task_id);
  for (const link of links) log(`${tool}: output ${link}`);
  return links;
}

/** The signed links of a finished task, from get_task's resource_link items. */
async function outputsOf(client: Client, taskId: string): Promise<string[]> {
  const read = await client.callTool({ name: "get_task", arguments: { task_id: taskId } });
  return (read.content as { type: string; uri?: string }[])
    .filter((c) => c.type === "resource_link" && c.uri)
    .map((c) => c.uri as string);
}

async function main() {
  const arg = process.argv[2];
  if (!arg) {
    process.stderr.write("usage: tsx examples/mcp-device-agent.ts <MCP URL, e.g. https://us.api.example.com/mcp>\n");
    process.exit(2);
  }
  const mcpUrl = new URL(arg);
  const accessToken = await signIn(mcpUrl);
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: { token: async () => accessToken } });
  const client = new Client({ name: "device-agent-example", version: "1.0.0" });
  await client.connect(transport);
  await generate(client, "text_to_image", { prompt: "a lighthouse at dusk, watercolor" });
  await generate(client, "text_to_video", { prompt: "waves rolling onto a beach", duration: 5 });
  await client.close();
  log("Done.");
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
