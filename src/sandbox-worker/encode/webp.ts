/**
 * WebP through @jsquash/webp (libwebp as built for Squoosh). A Worker cannot compile WebAssembly
 * from bytes at run time, so the encoder's module is imported (the bundler hands it over
 * compiled) and given to the package's `init` once per isolate. `init` picks the SIMD build of
 * its glue wherever WebAssembly SIMD is available, as it is in workerd, so that is the build
 * imported here.
 */

import webpModule from "@jsquash/webp/codec/enc/webp_enc_simd.wasm";
import encode, { init } from "@jsquash/webp/encode";

let ready: Promise<unknown> | undefined;

/** RGB pixels (row-major, 8 bits a channel) as a lossy WebP, opaque. */
export async function encodeWebp(width: number, height: number, rgb: Uint8Array, quality = 90): Promise<Uint8Array> {
  ready ??= (init as unknown as (module: WebAssembly.Module) => Promise<unknown>)(webpModule).catch((e) => {
    ready = undefined;
    throw e;
  });
  await ready;
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let i = 0, j = 0; j < rgba.length; i += 3, j += 4) {
    rgba[j] = rgb[i] as number;
    rgba[j + 1] = rgb[i + 1] as number;
    rgba[j + 2] = rgb[i + 2] as number;
    rgba[j + 3] = 255;
  }
  const image = { data: rgba, width, height, colorSpace: "srgb" };
  return new Uint8Array(await encode(image as unknown as Parameters<typeof encode>[0], { quality }));
}
