/**
 * Media carried by the documented request examples. Each example is sent by a test and must be
 * admitted, so the inputs are ones every card of the operation can take: a data URI (no network
 * needed, so "Test Request" on /docs works as written) and, where cards take video only by URL or
 * artifact, an artifact id standing for a video of the caller's.
 */

/** A 640×360 PNG (a dawn-sky gradient, 572 bytes): within every card's edge and aspect limits. */
export const EXAMPLE_IMAGE = {
  type: "data_uri",
  data_uri:
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAoAAAAFoBAMAAAA1HFdiAAAAJFBMVEUePIwyRYdGToNaV35uYHqCaXWWc3GqfGy+hWjSjmPml1/6oFogTFTwAAAB00lEQVR42u3QwRSAQAAFwFVIIYUUUkghhVVIIYUUkkvg3/7rNoMwYwAAAAAAAAAAAPCDhYpAgQIFCkSgQIECEShQoEAEChQoEIECBQpEoECBAhEoUKBAcuBKRaBAgQIFIlCgQIEIFChQIAIFChSIQIECBSJQoECBCBQoUCA5cKMiUKBAgQIRKFCgQAQKFCgQgQIFCkSgQIECEShQoEAEChQokBy4UxEoUKBAgQgUKFAgAgUKFIhAgQIFIlCgQIEIFChQIAIFChRIDjyoCBQoUKBABAoUKBCBAgUKRKBAgQIRKFCgQAQKFCgQgQIFCiQHnlQEChQoUCACBQoUiECBAgUiUKBAgQgUKFAgAgUKFIhAgQIFkgMnFYECBQoUiECBAgUiUKBAgQgUKFAgAgUKFIhAgQIFIlCgQIHkwIuKQIECBQpEoECBAhEoUKBABAoUKBCBAgUKRKBAgQIRKFCgQHLgTUWgQIECBSJQoECBCBQoUCACBQoUiECBAgUiUKBAgQgUKFAgOfChIlCgQIECEShQoEAEChQoEIECBQpEoECBAhEoUKBABAoUKJAc+FIRKFCgQIEIFChQIAIFChSIQIECBSJQoECBCBQoUCACBQoUSPQB4MxkndaVTFwAAAAASUVORK5CYII=",
} as const;

/** An artifact id of the caller's: a video generated (or uploaded) earlier. */
export const EXAMPLE_VIDEO_ARTIFACT_ID = "art_5e0c3b9a7d214f6c8a1e2d3c4b5a6978";
export const EXAMPLE_VIDEO = { type: "artifact", artifact_id: EXAMPLE_VIDEO_ARTIFACT_ID } as const;
