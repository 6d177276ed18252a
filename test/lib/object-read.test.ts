/** Reads from a Durable Object are asked again when the object went away under them, and only then. */
import { describe, expect, it } from "vitest";
import { OBJECT_READ_ATTEMPTS, readObject } from "../../src/lib/object-read";

function failing(times: number, error: () => unknown) {
  let calls = 0;
  return {
    read: async () => {
      calls++;
      if (calls <= times) throw error();
      return `answer after ${calls}`;
    },
    calls: () => calls,
  };
}

describe("readObject", () => {
  it("answers a read that succeeds at once, asked once", async () => {
    const r = failing(0, () => new Error("unused"));
    expect(await readObject(r.read, 0)).toBe("answer after 1");
    expect(r.calls()).toBe(1);
  });

  it("asks again after the object was reset under the read", async () => {
    const r = failing(1, () => new Error("broken.outputGateBroken; jsg.Error: drill: crash after submit"));
    expect(await readObject(r.read, 0)).toBe("answer after 2");
    expect(r.calls()).toBe(2);
  });

  it("gives up after its attempts with the last error", async () => {
    const r = failing(10, () => new Error("Durable Object reset because its code was updated."));
    await expect(readObject(r.read, 0)).rejects.toThrow("code was updated");
    expect(r.calls()).toBe(OBJECT_READ_ATTEMPTS);
  });

  it("never asks an overloaded object again", async () => {
    const r = failing(1, () => Object.assign(new Error("Durable Object is overloaded."), { overloaded: true }));
    await expect(readObject(r.read, 0)).rejects.toThrow("overloaded");
    expect(r.calls()).toBe(1);
  });
});
