/**
 * libopus, as compiled to WebAssembly by the @evan/opus package, called through its C API. The
 * package's own loader reads the .wasm with `fs`; a Worker cannot, and cannot compile WebAssembly
 * from bytes at run time either, so the module is imported (the bundler hands it over compiled)
 * and instantiated here once per isolate. It imports only no-op WASI stubs and a memory-growth
 * notice: the views below are made afresh after every call that may grow memory.
 */
import opusModule from "@evan/opus/wasm/opus.wasm";

interface OpusExports {
  memory: WebAssembly.Memory;
  _initialize(): void;
  malloc(size: number): number;
  free(ptr: number): void;
  opus_strerror(code: number): number;
  opus_encoder_get_size(channels: number): number;
  opus_encoder_init(st: number, rate: number, channels: number, application: number): number;
  opus_encode(st: number, pcm: number, frameSize: number, out: number, maxBytes: number): number;
  opus_encoder_ctl_set(st: number, request: number, value: number): number;
  opus_encoder_ctl_get(st: number, request: number): number;
  opus_decoder_get_size(channels: number): number;
  opus_decoder_init(st: number, rate: number, channels: number): number;
  opus_decode(st: number, data: number, length: number, pcm: number, frameSize: number, fec: number): number;
}

/** The rates libopus takes and gives: anything else is resampled first. */
export const OPUS_RATES = [8000, 12000, 16000, 24000, 48000] as const;

/** opus_defines.h */
export const OPUS_APPLICATION = { voip: 2048, audio: 2049 } as const;
const OPUS_SET_BITRATE = 4002;
const OPUS_GET_LOOKAHEAD = 4027;
/** The largest packet a frame can make (RFC 6716 §3.4: 1275 bytes per frame, up to 3 frames). */
const MAX_PACKET = 4000;
/** 120 ms at 48 kHz: the longest frame a packet can decode to. */
const MAX_FRAME = 5760;

let lib: OpusExports | undefined;

function opus(): OpusExports {
  if (lib) return lib;
  const wasi = { fd_seek: () => 0, fd_write: () => 0, fd_close: () => 0, proc_exit: () => {} };
  const instance = new WebAssembly.Instance(opusModule, {
    wasi_snapshot_preview1: wasi,
    env: { emscripten_notify_memory_growth: () => {} },
  });
  const exports = instance.exports as unknown as OpusExports;
  // A WASI reactor: its constructors run once, before any other export is called.
  exports._initialize();
  lib = exports;
  return exports;
}

function check(o: OpusExports, code: number, what: string): number {
  if (code >= 0) return code;
  const bytes = new Uint8Array(o.memory.buffer);
  let end = o.opus_strerror(code);
  const start = end;
  while (bytes[end] !== 0 && end < bytes.length) end++;
  throw new Error(`opus: ${what}: ${new TextDecoder().decode(bytes.subarray(start, end))}`);
}

export class OpusEncoder {
  private readonly o = opus();
  private readonly st: number;
  private readonly pcm: number;
  private readonly out: number;
  /** Samples per channel in one 20 ms frame at the encoder's rate. */
  readonly frameSize: number;

  constructor(
    readonly rate: number,
    readonly channels: number,
    application: keyof typeof OPUS_APPLICATION,
  ) {
    const o = this.o;
    this.frameSize = rate / 50;
    this.st = o.malloc(o.opus_encoder_get_size(channels));
    this.pcm = o.malloc(this.frameSize * channels * 2);
    this.out = o.malloc(MAX_PACKET);
    try {
      check(o, o.opus_encoder_init(this.st, rate, channels, OPUS_APPLICATION[application]), "encoder init");
    } catch (e) {
      this.destroy();
      throw e;
    }
  }

  set bitrate(bitsPerSecond: number) {
    check(this.o, this.o.opus_encoder_ctl_set(this.st, OPUS_SET_BITRATE, bitsPerSecond), "set bitrate");
  }

  /** Samples (per channel, at the encoder's rate) the encoder delays its output by. */
  get lookahead(): number {
    return check(this.o, this.o.opus_encoder_ctl_get(this.st, OPUS_GET_LOOKAHEAD), "get lookahead");
  }

  /** One 20 ms frame of interleaved samples (frameSize × channels) as one Opus packet. */
  encode(frame: Int16Array): Uint8Array {
    const o = this.o;
    if (frame.length !== this.frameSize * this.channels) throw new Error("opus: a frame is 20 ms of samples");
    new Int16Array(o.memory.buffer, this.pcm, frame.length).set(frame);
    const n = check(o, o.opus_encode(this.st, this.pcm, this.frameSize, this.out, MAX_PACKET), "encode");
    return new Uint8Array(o.memory.buffer, this.out, n).slice();
  }

  destroy(): void {
    for (const p of [this.st, this.pcm, this.out]) if (p) this.o.free(p);
  }
}

/** Decodes Opus packets to interleaved 16-bit samples at `rate` (48 kHz by default, as RFC 7845 advises). */
export class OpusDecoder {
  private readonly o = opus();
  private readonly st: number;
  private readonly pcm: number;
  private readonly data: number;

  constructor(
    readonly channels: number,
    readonly rate = 48000,
  ) {
    const o = this.o;
    this.st = o.malloc(o.opus_decoder_get_size(channels));
    this.pcm = o.malloc(MAX_FRAME * channels * 2);
    this.data = o.malloc(MAX_PACKET);
    try {
      check(o, o.opus_decoder_init(this.st, rate, channels), "decoder init");
    } catch (e) {
      this.destroy();
      throw e;
    }
  }

  decode(packet: Uint8Array): Int16Array {
    const o = this.o;
    if (packet.length > MAX_PACKET) throw new Error("opus: packet too long");
    new Uint8Array(o.memory.buffer, this.data, packet.length).set(packet);
    const n = check(o, o.opus_decode(this.st, this.data, packet.length, this.pcm, MAX_FRAME, 0), "decode");
    return new Int16Array(o.memory.buffer, this.pcm, n * this.channels).slice();
  }

  destroy(): void {
    for (const p of [this.st, this.pcm, this.data]) if (p) this.o.free(p);
  }
}
