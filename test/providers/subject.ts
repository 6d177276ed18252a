/**
 * What the conformance suite runs against one route: a model and operation of a provider, and the
 * cases that cannot apply to it (each with the reason). Each provider lists its subjects in
 * test/providers/subjects/<provider>.ts.
 */
export const CASES = [
  "success",
  "progress",
  "submit_429",
  "submit_5xx",
  "safety_input",
  "safety_output",
  "expiring_output",
  "cancel",
  "crash_after_submit",
  "unknown_status",
  "malformed",
  "signed_inputs",
] as const;
export type Case = (typeof CASES)[number];

export interface SubjectInputs {
  /** A PNG the cards accept (512x512). */
  png: Record<string, unknown>;
  /** An MP4 the tenant owns (an artifact). */
  mp4: Record<string, unknown>;
}

export interface Subject {
  name: string;
  provider: string;
  model: string;
  path: string;
  /** The request body; `text` carries the #tag/#fake markers where the upstream sees it. */
  body(text: string, inputs: any): Record<string, unknown>;
  output: { kind: "image" | "video" | "audio" | "text"; count: number; width?: number; height?: number };
  skip?: Partial<Record<string, string>>;
  /** The mode of the key the cases use (the sandbox is the only route of a test-mode key). */
  keyMode?: "live" | "test";
  /** Metadata that asks for a scenario where the text cannot (the sandbox's fault injection). */
  scenarioMetadata?: (scenario: string) => Record<string, string> | null;
}
