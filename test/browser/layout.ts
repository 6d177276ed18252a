/**
 * What a console page is held to at a given window width, measured inside Chromium:
 * - the page never scrolls sideways (document.scrollingElement.scrollWidth ≤ clientWidth);
 * - no table and no form is wider than the box it sits in; at a desk's width (`tablesFit`) no
 *   table scrolls inside its own box either, so a row's actions are in view without scrolling;
 * - every visible control (button, link, input, select, textarea, summary) can be reached: scrolled
 *   into view, it lies inside the window and inside each box that clips it, and nothing covers
 *   its middle.
 * A page is measured as loaded and again with its folded sections open. Each problem is one line
 * naming the element, so a failure says what to look at.
 */
import type { Page } from "playwright-core";

/** Runs in the page (a string, so that no DOM types are needed here); returns the problems found. */
const MEASURE = `((tablesFit) => {
  const problems = [];
  const root = document.scrollingElement;
  const name = (el) => {
    const text = (el.getAttribute("aria-label") || el.textContent || el.getAttribute("name") || el.id || "").trim().replace(/\\s+/g, " ").slice(0, 40);
    return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (text ? ' "' + text + '"' : "");
  };
  const px = (n) => Math.round(n);
  if (root.scrollWidth > root.clientWidth)
    problems.push("the page scrolls sideways: " + root.scrollWidth + " px of content in " + root.clientWidth + " px");
  for (const t of document.querySelectorAll("table")) {
    const box = t.parentElement;
    const r = t.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    if (b.right > root.clientWidth + 0.5) problems.push(name(t) + "'s box ends at " + px(b.right) + " px, past the window");
    if (tablesFit && box.scrollWidth > box.clientWidth + 1)
      problems.push("a table is " + px(r.width) + " px wide in a " + px(b.width) + " px box (" + (t.querySelector("th")?.textContent ?? "") + "…)");
  }
  for (const f of document.querySelectorAll("form")) {
    if (!f.checkVisibility()) continue;
    const parent = f.parentElement;
    if (f.scrollWidth > f.clientWidth + 1 && getComputedStyle(f).overflowX === "visible")
      problems.push("a form (" + (f.getAttribute("action") ?? "") + ") holds " + f.scrollWidth + " px in " + f.clientWidth + " px");
    const r = f.getBoundingClientRect();
    const p = parent.getBoundingClientRect();
    if (r.right > p.right + 1 && getComputedStyle(parent).display !== "inline" && !parent.closest(".table-scroll"))
      problems.push("a form (" + (f.getAttribute("action") ?? "") + ") ends at " + px(r.right) + " px, past its box at " + px(p.right) + " px");
  }
  /** The ancestors that clip what overflows them. */
  const clippers = (el) => {
    const out = [];
    for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX !== "visible" || s.overflowY !== "visible") out.push(a);
    }
    return out;
  };
  const controls = document.querySelectorAll("button, a[href], input:not([type=hidden]), select, textarea, summary");
  for (const el of controls) {
    if (!el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true }) || el.closest(".sr-only")) continue;
    let r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue;
    el.scrollIntoView({ block: "center", inline: "nearest" });
    r = el.getBoundingClientRect();
    if (r.left < -0.5 || r.right > root.clientWidth + 0.5) {
      problems.push(name(el) + " is outside the window (" + px(r.left) + " to " + px(r.right) + " px of " + root.clientWidth + ")");
      continue;
    }
    let clipped = false;
    for (const c of clippers(el)) {
      const b = c.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5) {
        problems.push(name(el) + " is cut off by its box (" + px(r.left) + " to " + px(r.right) + " px in " + px(b.left) + " to " + px(b.right) + ")");
        clipped = true;
        break;
      }
    }
    if (clipped) continue;
    // A link that wraps is several boxes: its first one is tested (the middle of the whole may be between them).
    const first = el.getClientRects()[0];
    const hit = document.elementFromPoint(first.left + first.width / 2, first.top + first.height / 2);
    const label = hit && hit.closest("label");
    const own = hit && (hit === el || el.contains(hit) || (label && (label.contains(el) || label.htmlFor === el.id)));
    if (!own) problems.push(name(el) + " is covered by " + (hit ? name(hit) : "nothing drawn"));
  }
  window.scrollTo(0, 0);
  return problems;
})`;

/**
 * The layout problems of the page as loaded, then with every folded section (a `<details>` other
 * than the navigation's menu) open; an empty list when it fits both ways.
 */
export async function layoutProblems(page: Page, opts: { tablesFit: boolean }): Promise<string[]> {
  const measure = async () => (await page.evaluate(`${MEASURE}(${JSON.stringify(opts.tablesFit)})`)) as string[];
  const loaded = await measure();
  const opened = (await page.evaluate(`(() => {
    const closed = [...document.querySelectorAll("details:not([open])")].filter((d) => !d.closest("nav.main"));
    for (const d of closed) d.open = true;
    return closed.length;
  })()`)) as number;
  if (opened === 0) return loaded;
  const open = (await measure()).filter((p) => !loaded.includes(p)).map((p) => `${p} (with its folded sections open)`);
  return [...loaded, ...open];
}
