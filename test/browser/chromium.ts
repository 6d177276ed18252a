/**
 * Where the browser tests find Chromium (Debian's `chromium`; nothing is downloaded). Kept apart from
 * the harness so that the test configuration can ask without loading playwright.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export const INSTALL_HINT = "apt-get install -y chromium";

/** Chromium's executable: CHROMIUM_PATH, else `chromium` on the PATH; null when there is none. */
export function findChromium(): string | null {
  const candidates = process.env.CHROMIUM_PATH
    ? [process.env.CHROMIUM_PATH]
    : [...(process.env.PATH ?? "").split(delimiter).map((d) => join(d, "chromium")), "/usr/bin/chromium"];
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {}
  }
  return null;
}

/** Chromium's executable. Throws, naming the install command, when missing. */
export function chromiumPath(): string {
  const found = findChromium();
  if (found) return found;
  throw new Error(
    `The browser tests need Chromium and none was found (CHROMIUM_PATH or \`chromium\` on the PATH): ${INSTALL_HINT}`,
  );
}
