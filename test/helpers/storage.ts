/** Storage fixtures for migration tests: an object rebuilt as an earlier schema version left it. */
import { type Migration, migrate } from "../../src/storage/migrations";

/** Empties an object's storage and rebuilds it at `version` (dropping the version row when `unversioned`). */
export async function rebuildAt(
  storage: DurableObjectStorage,
  migrations: Migration<any>[],
  version: number,
  unversioned = false,
): Promise<void> {
  const sql = storage.sql;
  for (const { name } of sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
    )
    .toArray())
    sql.exec(`DROP TABLE ${name}`);
  await migrate(storage, migrations, version);
  if (unversioned) sql.exec("DROP TABLE schema_version");
}
