/**
 * An OpenAI chat request as a Gemini `generateContent` body.
 *
 * Request: system and developer messages → `systemInstruction`; user → role "user" (text, images
 * as `inlineData` from data URIs or `fileData` for URLs); assistant → role "model" (text and
 * `functionCall` parts); tool → a `functionResponse` part (role "user") named after the call it
 * answers. Tools → `functionDeclarations` (their JSON Schema as `parametersJsonSchema`),
 * tool_choice → `toolConfig.functionCallingConfig` (AUTO / NONE / ANY with allowed names),
 * response_format → `responseMimeType` (+ `responseJsonSchema`), sampling and stop fields →
 * `generationConfig`, reasoning_effort → `thinkingConfig.thinkingLevel`. `maxOutputTokens` is the
 * budget the service reserved for.
 *
 * Gemini 3 models sign their function calls (`thoughtSignature`) and refuse a history whose calls
 * lost the signature. Each returned tool call carries it as `extra_content.google.thought_signature`
 * (as Google's own OpenAI-compatible endpoint does) and it is put back when the client echoes the
 * call; a call without one (a history from elsewhere) gets Google's documented
 * `skip_thought_signature_validator` on the first call of its turn.
 */
import { ApiError } from "../../errors/api-error";
import type { Json } from "./gemini-json";

export const SKIP_SIGNATURE = "skip_thought_signature_validator";

function invalid(message: string, param: string): ApiError {
  return new ApiError("invalid_request", message, { param });
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p: Json) =>
      p?.type === "text" && typeof p.text === "string" ? p.text : p?.type === "refusal" ? (p.refusal ?? "") : "",
    )
    .join("");
}

const EXT_MIME: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  heic: "image/heic",
  heif: "image/heif",
};

function imagePart(url: string, param: string): Json {
  const data = /^data:([^;,]+)((?:;[^;,]*)*?);base64,(.*)$/s.exec(url);
  if (data) return { inlineData: { mimeType: data[1], data: (data[3] as string).replace(/\s+/g, "") } };
  if (!/^https?:\/\//i.test(url)) throw invalid("An image_url must be an https URL or a base64 data URI.", param);
  // Google fetches external URLs itself; the type is told when the name says it.
  const ext = /\.([a-z0-9]{3,4})(?:$|[?#])/i.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  const mimeType = ext ? EXT_MIME[ext] : undefined;
  return { fileData: { fileUri: url, ...(mimeType ? { mimeType } : {}) } };
}

function userParts(content: unknown, param: string): Json[] {
  if (typeof content === "string") return [{ text: content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((p: Json, j: number) => {
    if (p?.type === "text" && typeof p.text === "string") return [{ text: p.text }];
    if (p?.type === "image_url" && typeof p.image_url?.url === "string")
      return [imagePart(p.image_url.url, `${param}/${j}/image_url/url`)];
    return [];
  });
}

function argsOf(raw: unknown, param: string): Json {
  if (raw === undefined || raw === null || raw === "") return {};
  try {
    const parsed = JSON.parse(String(raw)) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Json;
  } catch {}
  throw invalid("Tool call arguments must be a JSON object.", param);
}

/** A tool result as Gemini's functionResponse.response: a JSON object as sent, anything else under `output`. */
function responseOf(text: string): Json {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Json;
  } catch {}
  return { output: text };
}

function signatureOf(call: Json): string | undefined {
  const s = call?.extra_content?.google?.thought_signature;
  return typeof s === "string" && s.length > 0 ? s : undefined;
}

const REASONING: Record<string, string> = { minimal: "minimal", low: "low", medium: "medium", high: "high" };

/** The client's OpenAI body as a generateContent request. */
export function toGemini(body: Json, maxCompletionTokens: number): Json {
  const messages: Json[] = Array.isArray(body.messages) ? body.messages : [];
  const system: string[] = [];
  const contents: Json[] = [];
  const callNames = new Map<string, string>();
  const push = (role: "user" | "model", parts: Json[]) => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  messages.forEach((m, i) => {
    const param = `/messages/${i}`;
    switch (m?.role) {
      case "system":
      case "developer":
        system.push(textOf(m.content));
        break;
      case "user":
        push("user", userParts(m.content, `${param}/content`));
        break;
      case "assistant": {
        const parts: Json[] = [];
        const text = textOf(m.content) || (typeof m.refusal === "string" ? m.refusal : "");
        if (text) parts.push({ text });
        const calls: Json[] = Array.isArray(m.tool_calls) ? m.tool_calls : [];
        calls.forEach((call, j) => {
          const name = String(call?.function?.name ?? "");
          if (typeof call?.id === "string") callNames.set(call.id, name);
          const signature = signatureOf(call) ?? (j === 0 ? SKIP_SIGNATURE : undefined);
          parts.push({
            functionCall: { name, args: argsOf(call?.function?.arguments, `${param}/tool_calls/${j}/function/arguments`) },
            ...(signature ? { thoughtSignature: signature } : {}),
          });
        });
        push("model", parts);
        break;
      }
      case "tool": {
        const name = callNames.get(String(m.tool_call_id));
        if (!name)
          throw invalid(
            `No earlier assistant tool call has the id '${String(m.tool_call_id).slice(0, 64)}'.`,
            `${param}/tool_call_id`,
          );
        push("user", [{ functionResponse: { name, response: responseOf(textOf(m.content)) } }]);
        break;
      }
      default:
        break;
    }
  });

  const generationConfig: Json = { maxOutputTokens: maxCompletionTokens };
  if (typeof body.temperature === "number") generationConfig.temperature = body.temperature;
  if (typeof body.top_p === "number") generationConfig.topP = body.top_p;
  if (typeof body.seed === "number") generationConfig.seed = body.seed;
  if (typeof body.n === "number" && body.n > 1) generationConfig.candidateCount = body.n;
  if (typeof body.presence_penalty === "number") generationConfig.presencePenalty = body.presence_penalty;
  if (typeof body.frequency_penalty === "number") generationConfig.frequencyPenalty = body.frequency_penalty;
  const stop = typeof body.stop === "string" ? [body.stop] : Array.isArray(body.stop) ? body.stop : [];
  if (stop.length > 0) generationConfig.stopSequences = stop;
  const format = body.response_format;
  if (format?.type === "json_object") generationConfig.responseMimeType = "application/json";
  if (format?.type === "json_schema") {
    generationConfig.responseMimeType = "application/json";
    if (format.json_schema?.schema) generationConfig.responseJsonSchema = format.json_schema.schema;
  }
  const level = typeof body.reasoning_effort === "string" ? REASONING[body.reasoning_effort] : undefined;
  if (level) generationConfig.thinkingConfig = { thinkingLevel: level };

  const out: Json = { contents, generationConfig };
  const instruction = system.filter((s) => s.length > 0).join("\n\n");
  if (instruction) out.systemInstruction = { parts: [{ text: instruction }] };
  const tools: Json[] = Array.isArray(body.tools) ? body.tools : [];
  if (tools.length > 0) {
    out.tools = [
      {
        functionDeclarations: tools.map((t) => ({
          name: t.function?.name,
          ...(typeof t.function?.description === "string" ? { description: t.function.description } : {}),
          ...(t.function?.parameters ? { parametersJsonSchema: t.function.parameters } : {}),
        })),
      },
    ];
  }
  const choice = body.tool_choice;
  if (choice !== undefined && tools.length > 0) {
    const config =
      choice === "none"
        ? { mode: "NONE" }
        : choice === "required"
          ? { mode: "ANY" }
          : typeof choice === "object" && choice?.function?.name
            ? { mode: "ANY", allowedFunctionNames: [choice.function.name] }
            : { mode: "AUTO" };
    out.toolConfig = { functionCallingConfig: config };
  }
  return out;
}
