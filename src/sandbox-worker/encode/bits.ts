/**
 * A big-endian bit writer with Exp-Golomb codes, as H.264 headers are written. Whole bytes can be
 * copied in at byte boundaries, which is what keeps I_PCM macroblocks cheap to emit.
 */
export class BitWriter {
  private buf: Uint8Array;
  private pos = 0;
  private cur = 0;
  private pending = 0;

  constructor(capacity = 64) {
    this.buf = new Uint8Array(Math.max(16, capacity));
  }

  private reserve(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + extra));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** The low `count` bits of `value` (count ≤ 32), most significant first. */
  bits(value: number, count: number): void {
    for (let i = count - 1; i >= 0; i--) {
      this.cur = (this.cur << 1) | ((value >>> i) & 1);
      if (++this.pending === 8) {
        this.reserve(1);
        this.buf[this.pos++] = this.cur;
        this.cur = 0;
        this.pending = 0;
      }
    }
  }

  flag(on: boolean): void {
    this.bits(on ? 1 : 0, 1);
  }

  /** Unsigned Exp-Golomb, ue(v). */
  ue(value: number): void {
    const x = value + 1;
    const len = 32 - Math.clz32(x);
    this.bits(0, len - 1);
    this.bits(x, len);
  }

  /** Signed Exp-Golomb, se(v): positive values take the odd codes. */
  se(value: number): void {
    this.ue(value <= 0 ? -2 * value : 2 * value - 1);
  }

  get byteAligned(): boolean {
    return this.pending === 0;
  }

  /** Zero bits up to the next byte boundary (pcm_alignment_zero_bit, padding). */
  alignZero(): void {
    if (this.pending) this.bits(0, 8 - this.pending);
  }

  /** Copies whole bytes; the writer must be byte aligned. */
  bytes(data: Uint8Array): void {
    if (this.pending) throw new Error("BitWriter.bytes needs byte alignment");
    this.reserve(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  /** rbsp_trailing_bits: a stop bit, then zeros to the byte boundary. */
  trailing(): void {
    this.bits(1, 1);
    this.alignZero();
  }

  finish(): Uint8Array {
    this.alignZero();
    return this.buf.slice(0, this.pos);
  }
}
