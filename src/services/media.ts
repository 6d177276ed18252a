/**
 * Uploaded and generated media as the doors reach them: upload limits, stored artifacts and
 * signed links to inputs and outputs.
 */

export { largestImageInputPixels } from "../catalog/image-pixel-bound";
export { artifactKey, headArtifact } from "../media/artifacts";
export { verifyInputUrl } from "../media/signed-inputs";
export {
  canSignOutputUrls,
  OUTPUT_URL_TTL_SECONDS,
  outputUrlExpiry,
  signedLinkQuery,
  signOutputUrl,
  verifyOutputUrl,
} from "../media/signed-outputs";
export type { UploadSource } from "../media/uploads";
export { MAX_UPLOAD_BYTES, UPLOAD_CAP_BYTES } from "../media/uploads";
