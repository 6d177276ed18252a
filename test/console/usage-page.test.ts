/**
 * The console's usage page (a table per UTC day and model over a window of days, with totals) and
 * its CSV download (RFC 4180, a header row, one record per day and model), both summed by the
 * account's usage query, as `GET /v1/usage` is.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { csvField, toCsv } from "../../src/console/csv";
import { USAGE_CSV_COLUMNS, usageWindow } from "../../src/console/usage-report";
import { call } from "../helpers/api";
import { createImage, waitFor } from "../helpers/tasks";
import { type ConsoleTenant, consoleCall, consoleTenant, memberCookie } from "./member-session";

let t: ConsoleTenant;
let image: any;
let speech: any;
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  t = await consoleTenant("5000");
  image = await waitFor(t, (await createImage(t, { prompt: "a lighthouse", count: 2 })).json.task_id);
  const s = await call("/v1/audio/speech", {
    key: t.api_key,
    headers: { "Idempotency-Key": `speech-${Date.now()}` },
    body: { input: "Hello there", voice: "English_radiant_girl" },
  });
  expect(s.status, s.text).toBe(202);
  speech = await waitFor(t, s.json.task_id);
  expect([image.status, speech.status]).toEqual(["succeeded", "succeeded"]);
});

/** The data rows of the CSV, as records keyed by the header. */
function parseCsv(text: string): Record<string, string>[] {
  const [header, ...rows] = text.split("\r\n").filter((l) => l !== "");
  const names = (header as string).split(",");
  return rows.map((r) => Object.fromEntries(r.split(",").map((v, i) => [names[i], v])));
}

describe("GET /console/usage", () => {
  it("shows the last 30 days per day and model, with totals and a CSV link", async () => {
    const res = await consoleCall("/console/usage", t.owner);
    expect(res.status).toBe(200);
    const day = today();
    const from = new Date(Date.parse(`${day}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
    expect(res.text).toContain(`name="from" value="${from}"`);
    expect(res.text).toContain(`name="to" value="${day}"`);
    for (const task of [image, speech]) {
      expect(res.text).toMatch(
        new RegExp(`<td>${day}</td><td>${task.resolved_model}</td><td class="num">${task.billing.net_charged_credits}</td>`),
      );
    }
    const total = (Number(image.billing.net_charged_credits) + Number(speech.billing.net_charged_credits)).toString();
    expect(res.text).toMatch(new RegExp(`Total</th><td class="num">${total.replace(".", "\\.")}</td><td class="num">2</td>`));
    // Only the counters something used have a column.
    expect(res.text).toContain('<th scope="col">Images</th>');
    expect(res.text).toContain('<th scope="col">Characters</th>');
    expect(res.text).not.toContain("Reasoning tokens");
    expect(res.text).toContain(`href="/console/usage.csv?from=${from}&amp;to=${day}&amp;mode=live"`);
  });

  it("keeps test keys' usage apart, and says when a window is empty", async () => {
    const test = await consoleCall("/console/usage?mode=test", t.owner);
    expect(test.text).toContain("Nothing was settled with test keys");
    const old = await consoleCall("/console/usage?from=2020-01-01&to=2020-01-31", t.owner);
    expect(old.text).toContain("Nothing was settled with live keys from 2020-01-01 to 2020-01-31");
  });

  it("shows a bad window's message", async () => {
    for (const [query, message] of [
      ["from=2026-02-30", "from must be a date"],
      ["from=2026-03-02&to=2026-03-01", "from must not be later than to"],
      ["from=2020-01-01&to=2026-01-01", "at most 366 days"],
    ]) {
      const res = await consoleCall(`/console/usage?${query}`, t.owner);
      expect(res.status, query).toBe(422);
      expect(res.text, query).toContain(message as string);
      expect(res.text).not.toContain("Download CSV");
    }
  });

  it("is open to every role, and to no one signed out", async () => {
    const viewer = await memberCookie(t.tenant_id, "viewer");
    expect((await consoleCall("/console/usage", viewer)).status).toBe(200);
    expect((await consoleCall("/console/usage.csv", viewer)).status).toBe(200);
    expect((await consoleCall("/console/usage", null)).status).toBe(303);
    expect((await consoleCall("/console/usage.csv", null)).status).toBe(303);
  });
});

describe("GET /console/usage.csv", () => {
  it("downloads the same rows as CSV, with a header row", async () => {
    const day = today();
    const res = await consoleCall(`/console/usage.csv?from=${day}&to=${day}`, t.owner);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/csv; charset=utf-8/);
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="usage-live-${day}-to-${day}.csv"`);
    expect(res.text.split("\r\n")[0]).toBe(USAGE_CSV_COLUMNS.join(","));
    expect(res.text.endsWith("\r\n")).toBe(true);
    const rows = parseCsv(res.text);
    const byModel = Object.fromEntries(rows.map((r) => [r.model, r]));
    expect(byModel[image.resolved_model]).toMatchObject({
      day,
      credits: image.billing.net_charged_credits,
      tasks: "1",
      succeeded: "1",
      image_count: "2",
    });
    expect(byModel[speech.resolved_model]).toMatchObject({ day, tasks: "1", characters: String(speech.usage.characters) });
    // The same figures as the API's report of that day, by model.
    const api = await call(
      `/v1/usage?from=${day}&to=${new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10)}&group_by=model`,
      {
        key: t.api_key,
      },
    );
    expect(rows.map((r) => [r.model, r.credits])).toEqual(api.json.data.map((r: any) => [r.model, r.credits]));
  });

  it("refuses a bad window with the API's error", async () => {
    const res = await consoleCall("/console/usage.csv?to=someday", t.owner, { headers: { Accept: "application/json" } });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: "invalid_window", param: "/to" });
  });

  it("holds nothing of another tenant's", async () => {
    const other = await consoleTenant();
    const res = await consoleCall("/console/usage.csv", other.owner);
    expect(res.text).toBe(`${USAGE_CSV_COLUMNS.join(",")}\r\n`);
  });
});

describe("CSV and the usage window", () => {
  it("quotes fields as RFC 4180 says", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField(12.5)).toBe("12.5");
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    expect(csvField("cr\r")).toBe('"cr\r"');
    expect(
      toCsv([
        ["h1", "h2"],
        ["x", "y,z"],
      ]),
    ).toBe('h1,h2\r\nx,"y,z"\r\n');
  });

  it("defaults to the last 30 days, today included, and counts both ends", () => {
    const now = Date.parse("2026-03-15T18:00:00Z");
    expect(usageWindow({}, now)).toEqual({ from: "2026-02-14", to: "2026-03-15", mode: "live" });
    expect(usageWindow({ from: "2026-03-01", to: "2026-03-01", mode: "test" }, now)).toEqual({
      from: "2026-03-01",
      to: "2026-03-01",
      mode: "test",
    });
    expect(usageWindow({ from: "2025-03-16", to: "2026-03-15" }, now).from).toBe("2025-03-16");
    expect(() => usageWindow({ from: "2025-03-14", to: "2026-03-15" }, now)).toThrow(/at most 366 days/);
    expect(() => usageWindow({ from: "2026-03-01T00:00:00Z" }, now)).toThrow(/YYYY-MM-DD/);
  });
});
