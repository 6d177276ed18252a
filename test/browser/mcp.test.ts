/**
 * MCP clients signing a person in, end to end against the local Worker, with the person in
 * headless Chromium:
 * - the device flow: `examples/mcp-device-agent.ts`, given nothing but the /mcp URL, discovers
 *   the authorization server, registers, shows a code; the person signs in to the console,
 *   checks the code and approves; the agent then makes an image and a video with the tools;
 * - authorization code with PKCE: the official client SDK's OAuth provider sends the browser to
 *   the consent page and receives the code on a loopback redirect, as desktop MCP clients do.
 * Then the person revokes both connections in the console and the tokens stop working.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import {
  Client,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/local-server.ts";
import { probeMedia } from "../../src/media/probe/index.ts";
import { type Browser, type ConsoleServer, chromiumPath, launchBrowser, signInCode, startConsoleServer } from "./harness.ts";

const OWNER = "grace@example.com";
const root = new URL("../../", import.meta.url).pathname;

let server: ConsoleServer;
let browser: Browser;
let page: Page;
const state = { agentOutputs: [] as string[], pkceToken: "" };

async function signInAt(url: string) {
  await page.goto(url);
  if (new URL(page.url()).pathname === "/console/sign-in") {
    await page.getByLabel("Email").fill(OWNER);
    await page.getByRole("button", { name: /code/i }).click();
    await page.getByLabel(/code/i).fill(await signInCode(server, OWNER));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
  }
}

/** Runs the example agent; resolves once it printed the verification link, with the process. */
function startAgent(mcpUrl: string): Promise<{
  child: ChildProcess;
  link: string;
  userCode: string;
  done: Promise<{ code: number | null; out: string; err: string }>;
}> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(root, "node_modules/.bin/tsx"), [join(root, "examples/mcp-device-agent.ts"), mcpUrl], {
      cwd: root,
      env: { PATH: process.env.PATH } as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    let announced = false;
    const done = new Promise<{ code: number | null; out: string; err: string }>((ok) =>
      child.on("close", (code) => ok({ code, out, err })),
    );
    child.stdout?.on("data", (d) => {
      out += d;
      const link = /open (\S+)/.exec(out)?.[1];
      const userCode = /the code (\S+)\./.exec(out)?.[1];
      if (!announced && link && userCode) {
        announced = true;
        resolve({ child, link, userCode, done });
      }
    });
    child.stderr?.on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    done.then((r) => {
      if (!announced) reject(new Error(`the agent stopped before showing a code: ${r.code}\n${r.out}\n${r.err}`));
    });
  });
}

/** A loopback redirect receiver, as desktop MCP clients run one (RFC 8252). */
function redirectReceiver(): Promise<{ url: string; code: Promise<URLSearchParams>; server: Server }> {
  return new Promise((resolve) => {
    let deliver: (params: URLSearchParams) => void = () => {};
    const code = new Promise<URLSearchParams>((ok) => {
      deliver = ok;
    });
    const http = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      res.writeHead(200, { "Content-Type": "text/plain" }).end("You can close this window.");
      if (url.searchParams.has("code")) deliver(url.searchParams);
    });
    freePort().then((port) =>
      http.listen(port, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${port}/callback`, code, server: http })),
    );
  });
}

beforeAll(async () => {
  chromiumPath();
  [server, browser] = await Promise.all([startConsoleServer({ ownerEmail: OWNER }), launchBrowser()]);
  page = await browser.context.newPage();
});

afterAll(async () => {
  await browser?.close();
  server?.stop();
});

describe("MCP sign-in with a person in Chromium", () => {
  it("device flow: an agent with only the URL gets approved in the console and makes an image and a video", async () => {
    const agent = await startAgent(`${server.base}/mcp`);
    try {
      expect(agent.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
      await signInAt(agent.link);
      await page.waitForURL((u) => u.pathname === "/console/device");
      const body = await page.textContent("body");
      expect(body).toContain("Device agent example");
      expect(body).toContain(agent.userCode);
      expect(body).toContain("tasks:write");
      await page.getByRole("button", { name: "Approve" }).click();
      // The page's message, not the header's menu (which names Connected apps).
      await page.waitForSelector(".flash.ok >> text=/approved/i");
      const run = await agent.done;
      expect(run.code, `${run.out}\n${run.err}`).toBe(0);
      const outputs = [...run.out.matchAll(/^(\w+): output (\S+)$/gm)].map((m) => ({ tool: m[1], url: m[2] as string }));
      expect(outputs.map((o) => o.tool)).toEqual(["text_to_image", "text_to_video"]);
      for (const o of outputs) {
        const res = await fetch(o.url);
        expect(res.status).toBe(200);
        const media = probeMedia(new Uint8Array(await res.arrayBuffer()), "/file");
        expect(media.kind).toBe(o.tool === "text_to_image" ? "image" : "video");
      }
      state.agentOutputs = outputs.map((o) => o.url);
    } finally {
      agent.child.kill();
    }
  });

  it("authorization code with PKCE: the SDK's OAuth provider, a loopback redirect and the consent page", async () => {
    const receiver = await redirectReceiver();
    const saved: {
      client?: OAuthClientInformationMixed;
      tokens?: OAuthTokens;
      verifier?: string;
      discovery?: OAuthDiscoveryState;
    } = {};
    let authorizationUrl: URL | undefined;
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return receiver.url;
      },
      get clientMetadata(): OAuthClientMetadata {
        return {
          client_name: "Desktop MCP client",
          redirect_uris: [receiver.url],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
        };
      },
      clientInformation: () => saved.client,
      saveClientInformation: (info) => {
        saved.client = info;
      },
      tokens: () => saved.tokens,
      saveTokens: (tokens) => {
        saved.tokens = tokens;
      },
      redirectToAuthorization: (url) => {
        authorizationUrl = url;
      },
      saveCodeVerifier: (v) => {
        saved.verifier = v;
      },
      codeVerifier: () => saved.verifier as string,
      // Binds the callback leg to the authorization server discovered before it (SEP-2352).
      saveDiscoveryState: (d) => {
        saved.discovery = d;
      },
      discoveryState: () => saved.discovery,
    };
    const mcpUrl = new URL(`${server.base}/mcp`);
    try {
      const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
      await expect(new Client({ name: "desktop", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
      expect(authorizationUrl?.searchParams.get("resource")).toBe(mcpUrl.href);

      await signInAt(String(authorizationUrl));
      await page.waitForURL((u) => u.pathname.startsWith("/console/oauth"));
      expect(await page.textContent("body")).toContain("Desktop MCP client");
      await page.getByRole("button", { name: "Approve" }).click();
      // The whole callback: `code`, `state` and the issuer (RFC 9207), which the SDK checks.
      const callback = await receiver.code;
      expect(callback.get("iss")).toBe(server.base);
      await first.finishAuth(callback);
      expect(saved.tokens?.access_token).toMatch(/^mcp_at_us_/);

      const client = new Client({ name: "desktop", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
      const balance = await client.callTool({ name: "get_balance", arguments: {} });
      expect(balance.isError).toBeFalsy();
      await client.close();
      state.pkceToken = saved.tokens?.access_token as string;
    } finally {
      receiver.server.close();
    }
  });

  it("lists both connections in the console; revoking one stops its token at once", async () => {
    await page.goto(`${server.base}/console/connections`);
    const body = await page.textContent("body");
    expect(body).toContain("Device agent example");
    expect(body).toContain("Desktop MCP client");
    const call = () =>
      fetch(`${server.base}/mcp`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${state.pkceToken}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "MCP-Protocol-Version": "2025-06-18",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      });
    expect((await call()).status).toBe(200);
    await page.locator("tr", { hasText: "Desktop MCP client" }).getByRole("button", { name: "Revoke" }).click();
    await page.waitForLoadState();
    expect(await page.locator("tr", { hasText: "Desktop MCP client" }).count()).toBe(0);
    const refused = await call();
    expect(refused.status).toBe(401);
    expect(refused.headers.get("WWW-Authenticate")).toContain("resource_metadata=");
  });
});
