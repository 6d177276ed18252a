/**
 * Sandbox understanding: answers computed from the actual inputs — image pixels (PNG is
 * decoded; other formats are described from their headers), video container facts per sampled
 * second — and enhanced prompts built from the prompt's own words. Token usage is counted.
 */
import { decode } from "fast-png";
import type { SandboxInput } from "../providers/sandbox-contract";
import type { ProviderResult } from "../providers/types";

/** An input as the API sends it: its stored facts, and its bytes when the simulator reads them. */
export type StoredInput = SandboxInput;

const tokens = (text: string) => Math.max(1, Math.ceil([...text].length / 4));
const hex = (r: number, g: number, b: number) => `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("")}`;

function colorName(r: number, g: number, b: number): string {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const light = (max + min) / 510;
  if (max - min < 24) return light > 0.8 ? "white" : light < 0.2 ? "black" : "grey";
  const hue = max === r ? ((g - b) / (max - min) + 6) % 6 : max === g ? (b - r) / (max - min) + 2 : (r - g) / (max - min) + 4;
  const names = ["red", "orange", "yellow", "green", "cyan", "blue", "purple", "magenta"];
  const name = names[Math.floor(((hue * 60 + 15) % 360) / 45)] ?? "red";
  return `${light < 0.35 ? "dark " : light > 0.7 ? "light " : ""}${name}`;
}

/** Dominant colours (quantised), mean brightness and transparent share of a decoded PNG. */
function pixelFacts(bytes: Uint8Array) {
  const png = decode(bytes);
  const channels = png.channels;
  const data = png.data;
  const step = Math.max(1, Math.floor((png.width * png.height) / 40_000));
  const buckets = new Map<number, { n: number; r: number; g: number; b: number }>();
  let brightness = 0;
  let transparent = 0;
  let samples = 0;
  const scale = png.depth === 16 ? 257 : 1;
  for (let p = 0; p < png.width * png.height; p += step) {
    const o = p * channels;
    const r = Number(data[o]) / scale;
    const g = Number(channels >= 3 ? data[o + 1] : data[o]) / scale;
    const b = Number(channels >= 3 ? data[o + 2] : data[o]) / scale;
    const a = channels === 4 || channels === 2 ? Number(data[o + channels - 1]) / scale : 255;
    samples++;
    if (a < 128) {
      transparent++;
      continue;
    }
    brightness += (0.299 * r + 0.587 * g + 0.114 * b) / 255;
    const key = ((r >> 5) << 6) | ((g >> 5) << 3) | (b >> 5);
    const cur = buckets.get(key) ?? { n: 0, r: 0, g: 0, b: 0 };
    buckets.set(key, { n: cur.n + 1, r: cur.r + r, g: cur.g + g, b: cur.b + b });
  }
  const opaque = Math.max(1, samples - transparent);
  const dominant = [...buckets.values()]
    .sort((x, y) => y.n - x.n)
    .slice(0, 3)
    .map((c) => ({
      hex: hex(c.r / c.n, c.g / c.n, c.b / c.n),
      name: colorName(c.r / c.n, c.g / c.n, c.b / c.n),
      share: c.n / opaque,
    }));
  return { dominant, brightness: brightness / opaque, transparentShare: transparent / samples };
}

async function describeImage(input: StoredInput, n: number): Promise<string> {
  const head = `Image ${n}: ${input.width}×${input.height} ${input.mime.replace("image/", "").toUpperCase()}`;
  if (input.mime !== "image/png")
    return `${head}${input.alpha ? ", with transparency" : ""} (pixels not sampled for this format).`;
  if (!input.data) return `${head} (pixels unavailable).`;
  const f = pixelFacts(input.data);
  const colours = f.dominant.map((d) => `${d.name} ${d.hex} (${Math.round(d.share * 100)}%)`).join(", ");
  const tone = f.brightness > 0.66 ? "bright" : f.brightness < 0.33 ? "dark" : "mid-toned";
  const alpha = f.transparentShare > 0 ? `; ${Math.round(f.transparentShare * 100)}% transparent` : "; fully opaque";
  return `${head}. Dominant colours: ${colours}. Overall ${tone} (mean brightness ${Math.round(f.brightness * 100)}%)${alpha}.`;
}

export async function imageToText(request: Record<string, unknown>, inputs: StoredInput[]): Promise<ProviderResult> {
  const prompt = String(request.prompt ?? "");
  const lines = [];
  for (const [i, input] of inputs.entries()) lines.push(await describeImage(input, i + 1));
  const answer = `Sandbox analysis for "${prompt.slice(0, 200)}": ${lines.join(" ")}`;
  const text = request.response_format === "json" ? JSON.stringify({ prompt, observations: lines }) : answer;
  return {
    outputs: [],
    text,
    usage: { input_tokens: tokens(prompt) + inputs.length * 1100, output_tokens: tokens(text) },
    metadata: { simulated: true, provider: "sandbox" },
  };
}

export function enhancePrompt(request: Record<string, unknown>): ProviderResult {
  const prompt = String(request.prompt ?? "").trim();
  const words = prompt.split(/\s+/).filter(Boolean);
  const subject = words.slice(0, 12).join(" ");
  const style = typeof request.style === "string" ? request.style : "cinematic, natural colour grade";
  const enhanced = [
    `${subject.charAt(0).toUpperCase()}${subject.slice(1)}${words.length > 12 ? ` ${words.slice(12).join(" ")}` : ""}.`,
    "Opening shot: a slow dolly-in establishes the scene at eye level.",
    "Lighting: soft key light from the left with warm rim light; gentle atmospheric haze.",
    "Motion: subject moves naturally; camera follows with a steady gimbal; subtle parallax in the background.",
    `Style: ${style}; 24 fps, shallow depth of field.`,
    request.target_model ? `Tuned for ${request.target_model}.` : "",
  ]
    .filter(Boolean)
    .join(" ");
  return {
    outputs: [],
    text: enhanced,
    usage: { input_tokens: tokens(prompt), output_tokens: tokens(enhanced) },
    metadata: { simulated: true, provider: "sandbox", original_prompt: prompt },
  };
}

export function videoToText(request: Record<string, unknown>, inputs: StoredInput[]): ProviderResult {
  const v = inputs.find((i) => i.kind === "video");
  const seconds = Math.max(1, Math.ceil(v?.duration_seconds ?? 1));
  const observations = Array.from({ length: seconds }, (_, t) => ({
    second: t,
    observation: `frame at ${t}s: ${v?.width ?? "?"}×${v?.height ?? "?"} ${v?.mime ?? "video"}${v?.has_audio ? ", audio track present" : ""}`,
  }));
  const summary = `Sandbox video analysis for "${String(request.prompt ?? "").slice(0, 200)}": ${seconds} s of ${v?.mime ?? "video"} at ${v?.width}×${v?.height}, sampled at 1 frame per second (${seconds} frames)${v?.has_audio ? ", with an audio track" : ", no audio track"}.`;
  return {
    outputs: [],
    text: request.response_format === "json" ? JSON.stringify({ summary, observations }) : summary,
    usage: { input_video_seconds: seconds, input_tokens: seconds * 258, output_tokens: tokens(summary) },
    metadata: { simulated: true, provider: "sandbox", sampled_frames: seconds, observations },
  };
}
