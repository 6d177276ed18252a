/**
 * The pixel bound of image inputs (the largest image any card accepts, src/catalog/image-pixel-bound.ts)
 * holds for a task's inputs however they come: a URL's bytes, once fetched, are refused from their
 * probed dimensions with the same `media_too_large` an upload over the bound gets, as is a data URI.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { largestImageInputPixels } from "../../src/catalog/image-pixel-bound";
import { loadCatalog } from "../../src/catalog/store";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { dataUri } from "../helpers/media-fixtures";
import { expectLedgerBalanced, newKey } from "../helpers/tasks";
import { jpeg } from "./fixtures";

let t: TestTenant;
let bound: number;

beforeAll(async () => {
  t = await newTenant({ credits: "1000" });
  bound = largestImageInputPixels(await loadCatalog(env.CATALOG)) as number;
  expect(bound).toBeGreaterThan(0);
});

const imageToImage = (image: Record<string, unknown>) =>
  call("/v1/images/image-to-image", {
    key: t.api_key,
    headers: { "Idempotency-Key": newKey() },
    body: { prompt: "the same harbour at dusk", images: [image] },
  });

describe("the input pixel bound", () => {
  it("refuses a URL input over it, once fetched, as an upload over it is refused", async () => {
    const side = Math.ceil(Math.sqrt(bound)) + 1;
    const url = `${env.RECEIVER_URL}/media/jpeg-header/${side}x${side}`;
    const e = expectError(await imageToImage({ type: "url", url }), 413, "media_too_large", "/images/0");
    expect(e.details).toEqual({ kind: "image", max_pixels: bound, width: side, height: side });
    await expectLedgerBalanced(t.tenant_id);
  });

  it("refuses a data URI over it the same way", async () => {
    const side = Math.ceil(Math.sqrt(bound)) + 1;
    const e = expectError(
      await imageToImage({ type: "data_uri", data_uri: dataUri("image/jpeg", jpeg(side, side)) }),
      413,
      "media_too_large",
      "/images/0",
    );
    expect(e.details).toMatchObject({ max_pixels: bound, width: side, height: side });
  });

  it("takes a URL input within it", async () => {
    const res = await imageToImage({ type: "url", url: `${env.RECEIVER_URL}/media/image/512x512` });
    expect(res.status, res.text.slice(0, 400)).toBe(202);
  });
});
