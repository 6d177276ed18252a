/**
 * docs/storage/ is the storage's documentation and is held to the live objects: every table and
 * column (type, primary key, NOT NULL), every index, the schema version and its migrations, and
 * the fields of the stored task record.
 */

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { accountMigrations } from "../../src/accounts/account-schema";
import { BATCH_MIGRATIONS } from "../../src/batches/batch-schema";
import { DIRECTORY_MIGRATIONS } from "../../src/directory/directory-object";
import { HEALTH_MIGRATIONS } from "../../src/health/health-schema";
import { OUTBOX_MIGRATIONS } from "../../src/mail/outbox-object";
import { OAUTH_OBJECT_MIGRATIONS } from "../../src/oauth/oauth-object";
import { USER_MIGRATIONS } from "../../src/people/user-schema";
import { ensureUser } from "../../src/people/users";
import { REQUEST_LOG_MIGRATIONS } from "../../src/request-log/log-schema";
import { RECORD_VERSION } from "../../src/tasks/record-versions";
import { TASK_MIGRATIONS } from "../../src/tasks/task-schema";
import { call, newTenant } from "../helpers/api";
import { createImage } from "../helpers/tasks";

const docs = JSON.parse(env.STORAGE_DOCS) as Record<string, string>;

interface Column {
  type: string;
  constraint: "primary key" | "not null" | "null";
}

/** `| \`table.column\` | TYPE | constraint | … |` rows of a page. */
function documentedColumns(page: string): Map<string, Column> {
  const out = new Map<string, Column>();
  for (const m of page.matchAll(/^\| `([a-z_]+\.[a-z_]+)`\s*\| ([A-Z]+)\s*\| (primary key|not null|null)\s*\|/gm)) {
    out.set(m[1] as string, { type: m[2] as string, constraint: m[3] as Column["constraint"] });
  }
  return out;
}

function documentedIndexes(page: string): string[] {
  const section = page.split("## Indexes")[1]?.split("\n## ")[0] ?? "";
  return [...section.matchAll(/^\| `([a-z_]+)`\s*\|/gm)].map((m) => m[1] as string);
}

function documentedMigrations(page: string): { version: number; name: string }[] {
  const head = page.split("## Columns")[0] ?? "";
  return [...head.matchAll(/^\| (\d+)\s+\| (.+?)\s*\|$/gm)].map((m) => ({ version: Number(m[1]), name: m[2] as string }));
}

function liveSchema(sql: SqlStorage) {
  const tables = sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
    )
    .toArray()
    .map((t) => t.name);
  const columns = new Map<string, Column>();
  for (const table of tables) {
    for (const c of sql
      .exec<{ name: string; type: string; notnull: number; pk: number }>(`PRAGMA table_info(${table})`)
      .toArray()) {
      columns.set(`${table}.${c.name}`, {
        type: c.type,
        constraint: c.pk ? "primary key" : c.notnull ? "not null" : "null",
      });
    }
  }
  const indexes = sql
    .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'")
    .toArray()
    .map((i) => i.name);
  const version = sql.exec<{ version: number }>("SELECT version FROM schema_version").toArray()[0]?.version;
  return { columns, indexes, version };
}

async function expectDocumented(stub: DurableObjectStub, file: string, migrations: { version: number; name: string }[]) {
  const page = docs[file] as string;
  expect(page, file).toBeDefined();
  await runInDurableObject(stub, async (_o, state) => {
    const live = liveSchema(state.storage.sql);
    expect(Object.fromEntries(live.columns)).toEqual(Object.fromEntries(documentedColumns(page)));
    expect(live.indexes.sort()).toEqual(documentedIndexes(page).sort());
    const last = migrations[migrations.length - 1]?.version;
    expect(live.version).toBe(last);
    expect(page).toContain(`Schema version: ${last}`);
  });
  expect(documentedMigrations(page)).toEqual(migrations.map((m) => ({ version: m.version, name: m.name })));
}

describe("docs/storage matches the live objects", () => {
  it("AccountObject", async () => {
    const t = await newTenant();
    await expectDocumented(env.ACCOUNTS.getByName(t.tenant_id), "account-object.md", accountMigrations(env));
  });

  it("TaskObject, and every field of a stored task record", async () => {
    const t = await newTenant();
    const created = await createImage(t, { prompt: "documented" });
    expect(created.status).toBe(202);
    const stub = env.TASKS.get(env.TASKS.idFromString(created.json.task_id.slice("task_".length)));
    await expectDocumented(stub, "task-object.md", TASK_MIGRATIONS);
    const page = docs["task-object.md"] as string;
    expect(page).toContain(`Record version: ${RECORD_VERSION}`);
    const section = page.split("## The task record")[1]?.split("\n## ")[0] ?? "";
    const documented = [...section.matchAll(/^\| `([a-z_]+)`\s*\|/gm)].map((m) => m[1] as string).sort();
    await runInDurableObject(stub, async (_o, state) => {
      const row = state.storage.sql.exec<{ record: string; plan: string }>("SELECT record, plan FROM task").one();
      const stored = { ...JSON.parse(row.record), ...JSON.parse(row.plan) };
      expect(Object.keys(stored).sort()).toEqual(documented);
    });
  });

  it("UserObject", async () => {
    const email = `documented-${Date.now()}@example.com`;
    const user = await ensureUser(env, email);
    await expectDocumented(env.USERS.getByName(user.user_id), "user-object.md", USER_MIGRATIONS);
  });

  it("OutboxObject", async () => {
    const outbox = env.OUTBOX?.getByName("outbox");
    expect(outbox).toBeDefined();
    await outbox?.put({ to: "documented@example.com", subject: "s", text: "t" });
    await expectDocumented(outbox as DurableObjectStub, "outbox-object.md", OUTBOX_MIGRATIONS);
  });

  it("HealthObject", async () => {
    const stub = env.HEALTH.getByName("documented-provider");
    await stub.snapshot();
    await expectDocumented(stub, "health-object.md", HEALTH_MIGRATIONS);
  });

  it("OAuthObject", async () => {
    const stub = env.OAUTH.getByName("client:cli_documented000000000000000000");
    await stub.putClient(
      {
        client_id: "cli_documented000000000000000000",
        kind: "registered",
        client_name: "documented",
        redirect_uris: ["https://app.example.com/cb"],
        grant_types: ["authorization_code"],
        application_type: null,
        client_uri: null,
        created_at: new Date().toISOString(),
      },
      null,
    );
    await expectDocumented(stub, "oauth-object.md", OAUTH_OBJECT_MIGRATIONS);
  });

  it("BatchObject", async () => {
    const t = await newTenant({ mode: "test" });
    const created = await call("/v1/batches", {
      key: t.api_key,
      body: { operation: "text_to_image", items: [{ custom_id: "a", body: { prompt: "documented" } }] },
      headers: { "Idempotency-Key": `documented-${Date.now()}` },
    });
    expect(created.status, created.text).toBe(202);
    const stub = env.BATCHES.get(env.BATCHES.idFromString(created.json.batch_id.slice("batch_".length)));
    await expectDocumented(stub, "batch-object.md", BATCH_MIGRATIONS);
  });

  it("DirectoryObject", async () => {
    await expectDocumented(env.DIRECTORY.getByName("directory-0"), "directory-object.md", DIRECTORY_MIGRATIONS);
  });

  it("RequestLogObject", async () => {
    await expectDocumented(env.REQUEST_LOG.getByName("docs-check:hours"), "request-log-object.md", REQUEST_LOG_MIGRATIONS);
  });

  it("every page is listed in the storage index", () => {
    const index = docs["README.md"] as string;
    for (const file of Object.keys(docs).filter((f) => f !== "README.md")) expect(index).toContain(`(${file})`);
  });
});
