/** PNG (and APNG): every chunk walked to IEND. */
import { ascii, need, positiveDims, u8, u32be } from "./bytes";
import { type Facts, fail } from "./facts";

export const PNG_SIGNATURE = "\x89PNG\r\n\x1a\n";

export function probePng(d: Uint8Array): Facts {
  let off = 8;
  let width = 0;
  let height = 0;
  let colourType = -1;
  let trns = false;
  let actlFrames: number | undefined;
  let sawIdat = false;
  // Walk every chunk to IEND: a cut anywhere shows as a chunk running past the end.
  for (let index = 0; ; index++) {
    const len = u32be(d, off);
    const type = ascii(d, off + 4, 4);
    if (len > 0x7fffffff) fail(`chunk ${type} has an impossible length`);
    const body = off + 8;
    need(d, body, len + 4);
    if (index === 0) {
      if (type !== "IHDR" || len < 13) fail("the first chunk is not IHDR");
      width = u32be(d, body);
      height = u32be(d, body + 4);
      colourType = u8(d, body + 9);
    } else if (type === "IHDR") fail("more than one IHDR");
    else if (type === "tRNS") trns = true;
    // acTL only counts before the image data, where APNG requires it.
    else if (type === "acTL" && !sawIdat && len >= 8) actlFrames = u32be(d, body);
    else if (type === "IDAT") sawIdat = true;
    else if (type === "IEND") break;
    off = body + len + 4;
  }
  if (!sawIdat) fail("no image data (IDAT)");
  if (![0, 2, 3, 4, 6].includes(colourType)) fail(`unknown colour type ${colourType}`);
  if (actlFrames === 0) fail("acTL declares zero frames");
  return {
    kind: "image",
    mime: "image/png",
    ...positiveDims(width, height),
    alpha: colourType === 4 || colourType === 6 || trns,
    animated: actlFrames !== undefined,
    frames: actlFrames ?? 1,
  };
}
