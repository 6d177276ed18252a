/** Every task-creating operation tells content review which of its fields are free text. */
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/operations";
import { admissionItems, FetchedImages, reviewedTexts } from "../../src/tasks/admit/safety";

describe("reviewed fields", () => {
  it.each(OPERATIONS.map((op) => [op.name, op] as const))("%s declares its text fields, its prompt among them", (_name, op) => {
    expect(op.texts, op.name).toBeDefined();
    const example = Object.values(op.examples)[0]?.value ?? {};
    const prompt = op.prompt?.(example as never);
    if (prompt) expect(op.texts).toContain(prompt.field);
    // Each is a field of the body schema (its top-level name, for dotted paths).
    const shape = op.schema as unknown as {
      shape?: Record<string, unknown>;
      _zod?: { def?: { shape?: Record<string, unknown> } };
    };
    const keys = Object.keys(shape.shape ?? shape._zod?.def?.shape ?? {});
    for (const field of op.texts ?? []) expect(keys, `${op.name}: ${field}`).toContain(field.split(".")[0]);
  });

  it("turns the body's non-empty text fields and fetched images into items with their pointers", () => {
    const op = OPERATIONS.find((o) => o.name === "music.text-to-music");
    if (!op) throw new Error("no music operation");
    expect(reviewedTexts(op, {})).toEqual(["prompt", "lyrics", "title"]);
    const images = new Map([["/images/0", { bytes: new Uint8Array([1]), mime: "image/png" }]]);
    expect(admissionItems(op, { prompt: "pop", lyrics: "  ", title: "Dawn" }, images)).toEqual([
      { kind: "text", param: "/prompt", text: "pop" },
      { kind: "text", param: "/title", text: "Dawn" },
      { kind: "image", param: "/images/0", bytes: new Uint8Array([1]), mime: "image/png" },
    ]);
  });

  it("keeps image inputs in the body's order whatever order they were fetched in, and their bytes only for a provider that reads them", () => {
    const op = OPERATIONS.find((o) => o.name === "images.edits");
    if (!op) throw new Error("no edit operation");
    const png = { bytes: new Uint8Array([9, 9]), mime: "image/png" };
    const kept = new FetchedImages(true, ["/images/0", "/images/1", "/images/2"]);
    kept.set("/images/2", png).set("/images/0", png).set("/images/1", png);
    expect(admissionItems(op, { prompt: "edit" }, kept).map((i) => i.param)).toEqual([
      "/prompt",
      "/images/0",
      "/images/1",
      "/images/2",
    ]);
    const dropped = new FetchedImages(false, ["/images/0"]);
    dropped.set("/images/0", png);
    expect(dropped.get("/images/0")).toEqual({ bytes: new Uint8Array(0), mime: "image/png" });
  });
});
