/** Uncompressed containers for 16-bit PCM. */

/** Raw signed 16-bit little-endian samples, interleaved, no header. */
export function encodePcm(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length * 2);
  const view = new DataView(out.buffer);
  // DataView rather than the Int16Array's own bytes: the output must be little-endian on any host.
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i] as number, true);
  return out;
}

/** RIFF/WAVE with a 16-byte PCM fmt chunk. */
export function encodeWav(samples: Int16Array, sampleRate: number, channels: number): Uint8Array {
  const data = encodePcm(samples);
  const out = new Uint8Array(44 + data.length);
  const v = new DataView(out.buffer);
  const ascii = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  };
  ascii(0, "RIFF");
  v.setUint32(4, 36 + data.length, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, channels, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * channels * 2, true); // byte rate
  v.setUint16(32, channels * 2, true); // block align
  v.setUint16(34, 16, true);
  ascii(36, "data");
  v.setUint32(40, data.length, true);
  out.set(data, 44);
  return out;
}
