/**
 * The layering rules of src/ (docs/architecture.md), as a check over the import graph: which
 * layer a file belongs to, what it imports, and every import the rules forbid.
 */

/**
 * root: the Worker's entry and the app that mounts the doors, free to import anything. door: REST
 * (src/rest/), MCP, the console and the OAuth endpoints, which import only the services, the HTTP
 * plumbing, the base modules and their own files. services: what any door calls, importing the
 * domain but no door and no plumbing. plumbing (src/http/): no door. base (src/errors/, src/lib/).
 * domain: everything else, importing no service, no door and no plumbing.
 */
export type Layer =
  | { kind: "root" }
  | { kind: "door"; door: "rest" | "mcp" | "console" | "oauth" }
  | { kind: "services" }
  | { kind: "plumbing" }
  | { kind: "base" }
  | { kind: "domain" };

/** Where the Worker is put together: it mounts every door, so it alone may import them all. */
const ROOTS = new Set(["src/index.ts", "src/app.ts"]);
/** The sandbox provider, and the one file that may reach it: the provider registry. */
const SANDBOX = "src/providers/sandbox/";
const SANDBOX_GATE = "src/providers/registry.ts";
/** The sandbox Worker (its encoders): the API reaches it through its binding, by the contract in src/providers/. */
const SANDBOX_WORKER = "src/sandbox-worker/";
/** A Durable Object class: its file imports most of what the object runs. */
const OBJECT_CLASS = /-object\.ts$/;

/**
 * Imports the rules forbid that the code still has, each with why. An entry that no longer
 * matches an import fails the check, so the list only ever shrinks.
 */
export const ALLOWED: readonly { from: string; to: string; why: string }[] = [
  {
    from: "src/oauth-door/routes.tsx",
    to: "src/console/layout.tsx",
    why: "the authorization endpoint's one HTML refusal is drawn in the console's page frame",
  },
  {
    from: "src/providers/chat.ts",
    to: "src/providers/sandbox/chat.ts",
    why: "sandbox chat encodes nothing and answers in the API's isolate: the chat router reaches it directly",
  },
];

export function layerOf(file: string): Layer {
  if (ROOTS.has(file)) return { kind: "root" };
  if (file.startsWith("src/rest/")) return { kind: "door", door: "rest" };
  if (file.startsWith("src/mcp/")) return { kind: "door", door: "mcp" };
  if (file.startsWith("src/console/")) return { kind: "door", door: "console" };
  if (file === "src/oauth-door/routes.tsx") return { kind: "door", door: "oauth" };
  if (file.startsWith("src/services/")) return { kind: "services" };
  // The HTTP plumbing the doors share (context, key auth, body reading).
  if (file.startsWith("src/http/")) return { kind: "plumbing" };
  if (file.startsWith("src/errors/") || file.startsWith("src/lib/")) return { kind: "base" };
  return { kind: "domain" };
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The specifiers a source file imports or re-exports, static or dynamic. */
export function importsOf(source: string): string[] {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  return [...text.matchAll(IMPORT)].map((m) => (m[1] ?? m[2]) as string);
}

function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "..") out.pop();
    else if (part !== "." && part !== "") out.push(part);
  }
  return out.join("/");
}

/** The file a relative specifier names among `files`, or null (a package, an asset). */
export function resolveImport(from: string, spec: string, files: ReadonlySet<string>): string | null {
  if (!spec.startsWith(".")) return null;
  const base = normalize(`${from.slice(0, from.lastIndexOf("/"))}/${spec.replace(/\?.*$/, "")}`);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (files.has(candidate)) return candidate;
  }
  return null;
}

/** file → the files it imports, for every source file given as path → text. */
export function importGraph(sources: Record<string, string>): Map<string, string[]> {
  const files = new Set(Object.keys(sources));
  const graph = new Map<string, string[]>();
  for (const [file, text] of Object.entries(sources)) {
    const targets = importsOf(text)
      .map((spec) => resolveImport(file, spec, files))
      .filter((t): t is string => t !== null);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

const NAMES: Record<Exclude<Layer["kind"], "root" | "door">, string> = {
  services: "the services layer",
  plumbing: "the HTTP plumbing",
  base: "a base module",
  domain: "the domain",
};

/** Why `from` may not import `to`, or null when it may. */
export function ruleBroken(from: string, to: string): string | null {
  if (to.startsWith(SANDBOX) && !from.startsWith(SANDBOX) && from !== SANDBOX_GATE) {
    return "only the provider registry may import the sandbox";
  }
  if (to.startsWith(SANDBOX_WORKER) && !from.startsWith(SANDBOX_WORKER)) {
    return "nothing outside the sandbox Worker imports it (its encoders stay out of the API's bundle; the contract is in src/providers/)";
  }
  if (OBJECT_CLASS.test(to) && from !== "src/index.ts" && !from.startsWith(to.slice(0, to.lastIndexOf("/") + 1))) {
    return "only the Worker's entry and the object's own folder import a Durable Object class (callers use its -rpc.ts interface and -stub.ts facade)";
  }
  const a = layerOf(from);
  const b = layerOf(to);
  if (a.kind === "root") return null;
  if (b.kind === "root") return "nothing but the Worker's entry imports the app that mounts the doors";
  if (b.kind === "door") {
    if (a.kind === "door") return a.door === b.door ? null : `the ${a.door} door imports the ${b.door} door`;
    return `${NAMES[a.kind]} imports the ${b.door} door`;
  }
  // A door translates its wire format and calls a service: the domain is reached only through them.
  if (a.kind === "door" && b.kind === "domain") return `the ${a.door} door imports the domain`;
  if (a.kind === "domain" && b.kind === "services") return "the domain imports the services";
  if ((a.kind === "domain" || a.kind === "services") && b.kind === "plumbing")
    return `${NAMES[a.kind]} imports the HTTP plumbing`;
  return null;
}

/** Every forbidden import of the graph as `from -> to: why`, and every allowance that matches nothing. */
export function violations(graph: Map<string, string[]>, allowed = ALLOWED): string[] {
  const out: string[] = [];
  const used = new Set<string>();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const why = ruleBroken(from, to);
      if (!why) continue;
      const allowance = allowed.find((a) => a.from === from && a.to === to);
      if (allowance) used.add(`${from} -> ${to}`);
      else out.push(`${from} -> ${to}: ${why}`);
    }
  }
  for (const a of allowed) {
    if (!used.has(`${a.from} -> ${a.to}`))
      out.push(`${a.from} -> ${a.to}: allowed, but no such import is left; drop the allowance`);
  }
  return out.sort();
}

/**
 * The typed facades, one per Durable Object (and the sandbox Worker's binding): the only files that may cast a stub or its answers
 * (Workers RPC types answers as what it can serialize; each facade gives its stub the object's
 * RPC interface once, src/lib/remote.ts).
 */
export const RPC_FACADE: ReadonlySet<string> = new Set([
  "src/accounts/account-stub.ts",
  "src/accounts/task-lease-stub.ts",
  "src/batches/batch-stub.ts",
  "src/directory/directory-stub.ts",
  "src/health/health-stub.ts",
  "src/mail/outbox-stub.ts",
  "src/oauth/oauth-stub.ts",
  "src/people/user-stub.ts",
  "src/providers/sandbox-stub.ts",
  "src/rate-limits/rate-counter-stub.ts",
  "src/request-log/log-stub.ts",
  "src/request-log/task-attempts.ts",
  "src/tenancy/account-slice.ts",
  "src/tasks/task-stub.ts",
]);

/** Where a statement reaches a Durable Object: a stub, a facade's accessor, or a namespace. */
const STUB_CALL =
  /\b(?:stub\b|(?:taskStub|taskStubOfObjectId|taskObjectFor|accountFor|tenantAccount|directoryFor|rateCounterFor|rateCounterNamed|batchStubOf|batchObjectFor|batchIndexOf|healthObject|outboxOf|clientObject|deviceObject|userObject|sandboxService|accountSlice|tenantSlice|taskLeaseOf|getByName)\(|\.get\(\s*env\.\w+\.idFromString)/;
/** A cast right after a call (`f(x) as T`, `(await f(x)) as T`); `as const` is no cast. */
const CAST_AFTER_CALL = /\)\s*as\s+(?!const\b)/;

/** Files, other than the facades, that cast the answer of a Durable Object call (with any `as`). */
export function stubCasts(sources: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of Object.entries(sources)) {
    if (RPC_FACADE.has(file)) continue;
    // Statements, and the lines of a multi-line literal or call (a cast there belongs to its own line).
    for (const statement of text.split(/;|,\n/)) {
      const call = STUB_CALL.exec(statement);
      if (call && CAST_AFTER_CALL.test(statement.slice(call.index))) out.push(file);
    }
  }
  return [...new Set(out)].sort();
}

/**
 * Pairs of folders under src/ that import each other both ways, each with why it is left. A tie
 * not listed fails the check, and so does a listed tie that is gone, so the list only shrinks.
 */
export const FOLDER_TIES: readonly { ties: string; why: string }[] = [
  { ties: "src/batches <-> src/tasks", why: "a batch admits its items as tasks; a task that ends reports to its batch" },
  { ties: "src/catalog <-> src/health", why: "the catalog's route views show route health; route health orders a card's routes" },
  { ties: "src/catalog <-> src/media", why: "selection reads a probed input's facts; an upload's pixel bound is the catalog's" },
  { ties: "src/catalog <-> src/providers", why: "cards name providers and their output formats; adapters read the card types" },
  { ties: "src/catalog <-> src/safety", why: "the catalog loads the safety term list; review reads the loaded catalog" },
  { ties: "src/chat <-> src/providers", why: "the sandbox's chat prices and parses as chat does; chat calls the providers" },
  { ties: "src/media <-> src/retention", why: "an artifact's expiry is retention's rule; retention sweeps artifacts" },
  { ties: "src/media <-> src/tasks", why: "an input naming an artifact is checked against its task's scope" },
];

/** The folder (or top-level file) under src/ that a file belongs to. */
function folderOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : file;
}

/** Pairs of folders that import each other both ways ("a <-> b", a before b), sorted. */
export function folderTies(graph: Map<string, string[]>): string[] {
  const edges = new Set<string>();
  for (const [from, tos] of graph) {
    for (const to of tos) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a !== b) edges.add(`${a} -> ${b}`);
    }
  }
  const ties = new Set<string>();
  for (const edge of edges) {
    const [a, b] = edge.split(" -> ") as [string, string];
    if (edges.has(`${b} -> ${a}`)) ties.add(a < b ? `${a} <-> ${b}` : `${b} <-> ${a}`);
  }
  return [...ties].sort();
}
