/**
 * What the API asks of the sandbox Worker (this folder), bound as `SANDBOX` by a service
 * binding: the sandbox's outputs are made there, in its own isolate, so that an encode never holds
 * up an API request. Plain data both ways (RPC copies it); the API sends the bytes of the inputs the
 * simulator reads, so the sandbox needs no storage of its own.
 */
import type { ErrorCode } from "../errors/codes";
import type { ProviderResult } from "./types";

export interface SandboxInput {
  field: string;
  key: string;
  kind: "image" | "video" | "audio";
  mime: string;
  width?: number;
  height?: number;
  alpha?: boolean;
  duration_seconds?: number;
  has_audio?: boolean;
  data?: Uint8Array;
}

export interface SandboxJob {
  task_id: string;
  capability: string;
  request: Record<string, unknown>;
  inputs: SandboxInput[];
  seed: number;
  /** The card's default output format, for a request that names none. */
  card_format?: string;
  /** SANDBOX_MUSIC_SECONDS of the API's configuration. */
  music_seconds?: number;
}

/** An error crosses the binding as data: its code and message are what the task records. */
export type SandboxOutcome = { result: ProviderResult } | { error: { code: ErrorCode; message: string } };

/** The RPC methods of the sandbox Worker's entrypoint. */
export interface SandboxService {
  render(job: SandboxJob): Promise<SandboxOutcome>;
}
