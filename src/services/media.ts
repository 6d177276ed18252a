/**
 * Uploaded and generated media as the doors reach them: upload limits, stored artifacts and
 * signed links to inputs and outputs.
 */

export { artifactKey, headArtifact } from "../media/artifacts";
export { largestImageInputPixels } from "../media/image-pixel-bound";
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
