import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildCatalog, type CatalogFiles, CatalogLoadError } from "../../src/catalog/build";

const files: CatalogFiles = JSON.parse(env.TEST_CATALOG);
const firstModel = Object.keys(files).find((f) => f.startsWith("models/")) as string;
const speechModel = Object.keys(files).find((f) => f.startsWith("models/") && files[f]?.includes('"text_to_speech"')) as string;
const voicesFile = Object.keys(files).find((f) => f.startsWith("voices/")) as string;

function refusal(mutate: (files: CatalogFiles) => void): CatalogLoadError {
  const copy = { ...files };
  mutate(copy);
  try {
    buildCatalog(copy);
  } catch (e) {
    if (e instanceof CatalogLoadError) return e;
    throw e;
  }
  throw new Error("the catalog was accepted");
}

function editJson(f: CatalogFiles, name: string, edit: (json: any) => void) {
  const json = JSON.parse(f[name] as string);
  edit(json);
  f[name] = JSON.stringify(json);
}

describe("catalog loader", () => {
  it("accepts catalog-data/ as it is, with a content-derived version", () => {
    const a = buildCatalog(files);
    const b = buildCatalog({ ...files });
    expect(a.version).toMatch(/^cat_[0-9a-f]{16}$/);
    expect(a.version).toBe(b.version);
    expect(Object.keys(a.capabilities)).toHaveLength(14);
  });

  it("refuses invalid JSON, naming the file", () => {
    const e = refusal((f) => {
      f[firstModel] = "{ nope";
    });
    expect(e.file).toBe(firstModel);
    expect(e.message).toContain("not valid JSON");
  });

  it("refuses a card field of the wrong type, naming file and field", () => {
    const e = refusal((f) =>
      editJson(f, firstModel, (m) => {
        m.interfaces[0].quality_tier = "legendary";
      }),
    );
    expect(e.file).toBe(firstModel);
    expect(e.field).toBe("/interfaces/0/quality_tier");
  });

  it("refuses a control with an unknown key (cards are strict)", () => {
    const e = refusal((f) =>
      editJson(f, firstModel, (m) => {
        m.interfaces[0].controls.push({ field: "x", value_type: "string", colour: "blue" });
      }),
    );
    expect(e.field).toMatch(/^\/interfaces\/0\/controls\/\d+$/);
  });

  it("refuses a model without a sandbox route", () => {
    const e = refusal((f) =>
      editJson(f, firstModel, (m) => {
        m.routes = m.routes.filter((r: { provider: string }) => r.provider !== "sandbox");
        if (m.routes.length === 0) m.routes.push({ provider: "fal", upstream_model: "x" });
      }),
    );
    expect(e.field).toBe("/routes");
  });

  it("refuses a route whose provider has no adapter in the code (the catalog never promises more)", () => {
    const e = refusal((f) =>
      editJson(f, "models/flux-2-pro.json", (m) => {
        m.routes.unshift({ provider: "midjourney", upstream_model: "v7" });
      }),
    );
    expect(e.message).toContain("models/flux-2-pro.json");
    expect(e.message).toContain("/routes/0/provider");
    expect(e.message).toContain("no adapter for provider 'midjourney'");
  });

  it("refuses a route to a provider that serves none of the model's capabilities", () => {
    const e = refusal((f) =>
      editJson(f, "models/gpt-4o-mini-tts.json", (m) => {
        m.routes.unshift({ provider: "replicate", upstream_model: "x/y" });
      }),
    );
    expect(e.message).toContain("serves none of this model's capabilities");
  });

  it("refuses a per-capability upstream id for a capability the model does not offer", () => {
    const e = refusal((f) =>
      editJson(f, "models/kling-4.0.json", (m) => {
        m.routes[0].upstream_models = { text_to_speech: "nope" };
      }),
    );
    expect(e.message).toContain("/routes/0/upstream_models/text_to_speech");
  });

  it("refuses a model whose id differs from its file name", () => {
    const e = refusal((f) =>
      editJson(f, firstModel, (m) => {
        m.model = "renamed-model";
      }),
    );
    expect(e.field).toBe("/model");
  });

  it("refuses a missing capability file", () => {
    const e = refusal((f) => {
      delete f["capabilities/text_to_music.json"];
    });
    expect(e.file).toBe("capabilities/text_to_music.json");
  });

  it("refuses a voice whose compatible model is not a speech model", () => {
    const e = refusal((f) =>
      editJson(f, voicesFile, (list) => {
        list[0].compatible_models = ["no-such-model"];
      }),
    );
    expect(e.file).toBe(voicesFile);
    expect(e.field).toBe("/0/compatible_models/0");
  });

  it("refuses duplicate voice ids", () => {
    const e = refusal((f) =>
      editJson(f, voicesFile, (list) => {
        list.push({ ...list[0] });
      }),
    );
    expect(e.message).toContain("already defined");
  });

  it("refuses a pricing amount that is not a decimal string", () => {
    const e = refusal((f) =>
      editJson(f, speechModel, (m) => {
        m.interfaces[0].pricing.options[0].unit_credits = "0.1e-3";
      }),
    );
    expect(e.field).toBe("/interfaces/0/pricing/options/0/unit_credits");
  });

  it("refuses a folder it does not know", () => {
    const e = refusal((f) => {
      f["misc/notes.json"] = "{}";
    });
    expect(e.file).toBe("misc/notes.json");
  });
});
