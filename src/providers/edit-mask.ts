/**
 * The edit mask image editors take: a PNG the size of the base image, white and fully transparent
 * where the image may change, opaque black elsewhere. That satisfies both conventions in use
 * (OpenAI reads transparency; others read white as "edit here"). Rows are made and deflated one at
 * a time, so an 8192-pixel base image never needs its whole raster in memory.
 */
import { dataUriOf } from "../lib/base64";
import { pngFromRows } from "../media/png";
import type { EditRegion } from "./jobs";

/** Pixel ranges [from, to) of row `y` that the regions cover. */
function covered(regions: EditRegion[], width: number, height: number, y: number): [number, number][] {
  const out: [number, number][] = [];
  for (const r of regions) {
    if (y < Math.floor(r.y * height) || y >= Math.ceil((r.y + r.height) * height)) continue;
    out.push([Math.max(0, Math.floor(r.x * width)), Math.min(width, Math.ceil((r.x + r.width) * width))]);
  }
  return out;
}

/** The regions of image 0 as a `width`×`height` RGBA mask. */
export function editMask(width: number, height: number, regions: EditRegion[]): Promise<Uint8Array> {
  const own = regions.filter((r) => r.image_index === 0);
  // Consecutive rows with the same coverage share one buffer (a queued buffer is never changed).
  let key = "";
  let current = new Uint8Array(0);
  return pngFromRows(width, height, 6, (y) => {
    const spans = covered(own, width, height, y);
    const k = JSON.stringify(spans);
    if (k !== key || current.length === 0) {
      key = k;
      current = new Uint8Array(1 + width * 4);
      for (let x = 0; x < width; x++) current[1 + x * 4 + 3] = 255;
      for (const [x0, x1] of spans) current.fill(255, 1 + x0 * 4, 1 + x1 * 4);
      for (const [x0, x1] of spans) for (let x = x0; x < x1; x++) current[1 + x * 4 + 3] = 0;
    }
    return current;
  });
}

export async function editMaskDataUri(width: number, height: number, regions: EditRegion[]): Promise<string> {
  return dataUriOf("image/png", await editMask(width, height, regions));
}
