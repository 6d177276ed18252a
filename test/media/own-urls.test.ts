/** Which URLs name this deployment's own artifacts (read from storage instead of fetched). */
import { describe, expect, it } from "vitest";
import { ownArtifactOf } from "../../src/media/own-urls";

const ID = "art_0123456789abcdef0123456789abcdef";

describe("own artifact URLs", () => {
  it("recognises the owner's URL and the signed download URL under the public base URL", () => {
    const env = { PUBLIC_BASE_URL: "https://us.api.example.com/" };
    expect(ownArtifactOf(`https://us.api.example.com/v1/artifacts/${ID}`, env)).toEqual({ artifact_id: ID });
    expect(ownArtifactOf(`https://US.API.example.com:443/v1/artifacts/${ID}?download=1`, env)).toEqual({ artifact_id: ID });
    expect(ownArtifactOf(`https://us.api.example.com/files/${ID}?expires=123&sig=ab`, env)).toEqual({
      artifact_id: ID,
      signature: { expires: "123", sig: "ab" },
    });
    expect(ownArtifactOf(`/v1/artifacts/${ID}`, env)).toEqual({ artifact_id: ID });
  });

  it("honours a base URL with a path", () => {
    const env = { PUBLIC_BASE_URL: "https://example.com/media-api" };
    expect(ownArtifactOf(`https://example.com/media-api/v1/artifacts/${ID}`, env)).toEqual({ artifact_id: ID });
    expect(ownArtifactOf(`https://example.com/v1/artifacts/${ID}`, env)).toBeNull();
    expect(ownArtifactOf(`https://example.com/media-api-x/v1/artifacts/${ID}`, env)).toBeNull();
  });

  it("leaves every other URL to the fetcher", () => {
    const env = { PUBLIC_BASE_URL: "https://us.api.example.com" };
    for (const url of [
      `https://eu.api.example.com/v1/artifacts/${ID}`,
      `http://us.api.example.com/v1/artifacts/${ID}`,
      `https://user:pw@us.api.example.com/v1/artifacts/${ID}`,
      `https://us.api.example.com/v1/artifacts/${ID}/x`,
      `https://us.api.example.com/v1/artifacts/${ID.toUpperCase()}`,
      `https://us.api.example.com/v1/tasks/${ID}`,
      `//us.api.example.com/v1/artifacts/${ID}`,
      "not a url",
    ]) {
      expect(ownArtifactOf(url, env), url).toBeNull();
    }
    // Without a public address only relative links are this deployment's.
    expect(ownArtifactOf(`https://us.api.example.com/v1/artifacts/${ID}`, {})).toBeNull();
    expect(ownArtifactOf(`/v1/artifacts/${ID}`, {})).toEqual({ artifact_id: ID });
  });
});
