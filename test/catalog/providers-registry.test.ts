/** The table the catalog check reads (src/providers/names.ts) is the registry the tasks use. */
import { describe, expect, it } from "vitest";
import { PROVIDERS } from "../../src/providers/names";
import { adapterFor, adapterNames } from "../../src/providers/registry";

describe("provider registry", () => {
  it("has an adapter for every media provider of the table, serving what the table says", () => {
    for (const [name, serves] of Object.entries(PROVIDERS)) {
      const adapter = adapterFor(name);
      if (serves.media.length === 0) {
        expect(adapter, `${name} is chat-only`).toBeNull();
        continue;
      }
      expect(adapter?.name).toBe(name);
      expect([...(adapter?.capabilities ?? [])].sort()).toEqual([...serves.media].sort());
      expect(Boolean(adapter?.chat)).toBe(serves.chat);
      expect(Boolean(adapter?.simulated)).toBe(Boolean(serves.simulated));
    }
    for (const name of adapterNames()) expect(Object.keys(PROVIDERS)).toContain(name);
  });
});
