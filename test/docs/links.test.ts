/**
 * The documentation holds together: every relative link in the README and under docs/ leads to a
 * file that exists (and, with a #fragment, to a heading there), every page under docs/ is listed
 * in docs/README.md, and docs/layout.md names every folder of src/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(new URL("../..", import.meta.url).pathname);
const docs = join(root, "docs");

function markdownUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "screenshots" ? [] : markdownUnder(path);
    return name.endsWith(".md") ? [path] : [];
  });
}

const pages = [join(root, "README.md"), ...markdownUnder(docs)];

/** A heading's anchor as GitHub makes it. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

function links(text: string): string[] {
  // Code blocks and inline code hold examples, not links.
  const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
}

describe("the documentation", () => {
  it("has no link that leads nowhere", () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of links(readFileSync(page, "utf8"))) {
        if (/^[a-z]+:/i.test(link)) continue;
        const [file, fragment] = link.split("#") as [string, string | undefined];
        const target = file === "" ? page : resolve(dirname(page), file);
        if (!existsSync(target)) {
          broken.push(`${relative(root, page)} → ${link}`);
          continue;
        }
        if (fragment && target.endsWith(".md")) {
          const headings = [...readFileSync(target, "utf8").matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1] as string));
          if (!headings.includes(fragment)) broken.push(`${relative(root, page)} → ${link} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("lists every page under docs/ in docs/README.md", () => {
    const index = readFileSync(join(docs, "README.md"), "utf8");
    const listed = new Set(links(index).map((l) => resolve(docs, l.split("#")[0] as string)));
    const storageIndex = readFileSync(join(docs, "storage", "README.md"), "utf8");
    for (const l of links(storageIndex)) listed.add(resolve(docs, "storage", l.split("#")[0] as string));
    const unlisted = markdownUnder(docs)
      .filter((p) => p !== join(docs, "README.md") && !listed.has(p))
      .map((p) => relative(root, p));
    expect(unlisted).toEqual([]);
  });

  it("names every folder of src/ in docs/layout.md", () => {
    const layout = readFileSync(join(docs, "layout.md"), "utf8");
    const folders = readdirSync(join(root, "src")).filter((n) => statSync(join(root, "src", n)).isDirectory());
    expect(folders.filter((f) => !layout.includes(`\`${f}/\``))).toEqual([]);
  });

  it("keeps the README a front page", () => {
    const lines = readFileSync(join(root, "README.md"), "utf8").split("\n").length;
    expect(lines).toBeLessThanOrEqual(250);
  });
});
