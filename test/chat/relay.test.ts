/**
 * The relay forwards an upstream chunk's own text with only its id and model replaced when that
 * is exactly what rebuilding the chunk would send, and rebuilds it otherwise: either way the
 * client gets the same object.
 */
import { describe, expect, it } from "vitest";
import { ChatRelay } from "../../src/chat/relay";
import { type ChatObject, RAW_EVENT } from "../../src/providers/chat-upstream";

const upstream = (o: ChatObject, text = JSON.stringify(o)): ChatObject => {
  const parsed = JSON.parse(text) as ChatObject;
  parsed[RAW_EVENT] = text;
  return parsed;
};
const base = {
  id: "chatcmpl-up",
  object: "chat.completion.chunk",
  created: 1,
  model: "up-model",
  system_fingerprint: "fp",
  choices: [{ index: 0, delta: { content: "hi" }, finish_reason: null }],
};

describe("chat relay text", () => {
  const cases: [string, ChatObject, boolean][] = [
    ["usage null, asked", { ...base, usage: null }, true],
    ["usage null, not asked", { ...base, usage: null }, false],
    ["no usage, asked", base, true],
    ["no usage, not asked", base, false],
    [
      "a tool call's own id",
      {
        ...base,
        choices: [
          { index: 0, delta: { tool_calls: [{ index: 0, id: "chatcmpl-up", function: { name: "f", arguments: "{}" } }] } },
        ],
      },
      true,
    ],
    ["id after the choices", { choices: base.choices, object: base.object, model: "up-model", id: "chatcmpl-up" }, false],
  ];
  for (const [name, chunk, includeUsage] of cases) {
    it(`forwards the same object as a rebuild: ${name}`, () => {
      const relay = new ChatRelay("chatcmpl-ours", "our-model", 3, includeUsage);
      const text = relay.chunkText(upstream(chunk));
      const rebuilt = new ChatRelay("chatcmpl-ours", "our-model", 3, includeUsage).chunk(upstream(chunk));
      expect(JSON.parse(text as string)).toEqual(JSON.parse(JSON.stringify(rebuilt)));
    });
  }

  it("edits the upstream's text in place when it is compact and in the usual order", () => {
    const relay = new ChatRelay("chatcmpl-ours", "our-model", 3, true);
    const raw = JSON.stringify({ ...base, usage: null });
    expect(relay.chunkText(upstream(base, raw))).toBe(
      raw.replace('"chatcmpl-up"', '"chatcmpl-ours"').replace('"up-model"', '"our-model"'),
    );
  });

  it("rebuilds a chunk whose text is not compact, or that carries usage", () => {
    const relay = new ChatRelay("chatcmpl-ours", "our-model", 3, false);
    const spaced = JSON.stringify(base, null, 1);
    expect(JSON.parse(relay.chunkText(upstream(base, spaced)) as string)).toMatchObject({
      id: "chatcmpl-ours",
      model: "our-model",
    });
    const withUsage = { ...base, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
    const out = JSON.parse(relay.chunkText(upstream(withUsage)) as string);
    expect(out.usage).toBeUndefined();
    expect(out.id).toBe("chatcmpl-ours");
  });
});
