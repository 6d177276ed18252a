import { describe, expect, it } from "vitest";
import { generateCode, normaliseCode } from "../../src/people/codes";
import { normaliseEmail } from "../../src/people/email";
import { ACTIONS, can, ROLES, type Role } from "../../src/people/roles";

describe("sign-in codes", () => {
  it("are six digits, leading zeros kept, spread over every digit in every place", () => {
    const seen = Array.from({ length: 6 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) {
      const code = generateCode();
      expect(code).toMatch(/^\d{6}$/);
      for (const [place, d] of [...code].entries()) seen[place]?.add(d);
    }
    for (const digits of seen) expect(digits.size).toBe(10);
  });

  it("accept what a person types: spaces and dashes between digits, nothing else", () => {
    expect(normaliseCode("123456")).toBe("123456");
    expect(normaliseCode(" 123 456 ")).toBe("123456");
    expect(normaliseCode("123-456")).toBe("123456");
    expect(normaliseCode("12345")).toBeNull();
    expect(normaliseCode("1234567")).toBeNull();
    expect(normaliseCode("12345a")).toBeNull();
    expect(normaliseCode("")).toBeNull();
  });
});

describe("email addresses", () => {
  it("are trimmed and lower-cased; anything not shaped like an address is refused", () => {
    expect(normaliseEmail("  Ana@Example.COM ")).toBe("ana@example.com");
    for (const bad of ["", "ana", "ana@", "@example.com", "ana@example", "a b@example.com", "<ana@example.com>", 42, null]) {
      expect(normaliseEmail(bad), String(bad)).toBeNull();
    }
    expect(normaliseEmail(`${"a".repeat(250)}@example.com`)).toBeNull();
  });
});

describe("roles", () => {
  it("owner may do everything; developer keys, signing keys, webhooks, tasks, usage, provider keys, storage and the request log; viewer only reads", () => {
    expect(ROLES).toEqual(["owner", "developer", "viewer"]);
    const allowed = (role: Role) => ACTIONS.filter((a) => can(role, a));
    expect(allowed("owner")).toEqual([...ACTIONS]);
    expect(allowed("developer")).toEqual([
      "keys:manage",
      "signing_keys:manage",
      "webhooks:manage",
      "tasks:read",
      "tasks:write",
      "usage:read",
      "providers:manage",
      "storage:manage",
      "logs:read",
      "logs:manage",
    ]);
    expect(allowed("viewer")).toEqual(["tasks:read", "usage:read", "logs:read"]);
  });
});
