/** A growable big-endian byte writer with ISO BMFF box framing (size patched after the body). */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  pos = 0;

  constructor(capacity = 1024) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
  }

  private reserve(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + extra));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.reserve(1);
    this.view.setUint8(this.pos, v);
    this.pos += 1;
  }

  u16(v: number): void {
    this.reserve(2);
    this.view.setUint16(this.pos, v);
    this.pos += 2;
  }

  u24(v: number): void {
    this.u8(v >>> 16);
    this.u16(v & 0xffff);
  }

  u32(v: number): void {
    this.reserve(4);
    this.view.setUint32(this.pos, v);
    this.pos += 4;
  }

  zeros(n: number): void {
    this.reserve(n);
    this.buf.fill(0, this.pos, this.pos + n);
    this.pos += n;
  }

  bytes(data: Uint8Array): void {
    this.reserve(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  /** Four ASCII characters (a box type, brand or handler). */
  fourcc(s: string): void {
    if (s.length !== 4) throw new Error(`fourcc must be 4 characters: "${s}"`);
    for (let i = 0; i < 4; i++) this.u8(s.charCodeAt(i));
  }

  box(type: string, body: () => void): void {
    const start = this.pos;
    this.u32(0);
    this.fourcc(type);
    body();
    this.view.setUint32(start, this.pos - start);
  }

  fullBox(type: string, version: number, flags: number, body: () => void): void {
    this.box(type, () => {
      this.u8(version);
      this.u24(flags);
      body();
    });
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}
