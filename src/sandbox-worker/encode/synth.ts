/**
 * Deterministic music for the sandbox: a chord progression of sine partials and, on request, a
 * sung-sounding line (a gliding harmonic carrier shaped by vowel formants, cut into syllables).
 * The same options always produce the same samples, so outputs can be compared byte for byte.
 */
import { seededRandom } from "../../lib/random";
export interface SynthOptions {
  seconds: number;
  sampleRate: number;
  channels: number;
  seed: number;
  /** Adds the vocal line; the backing is the same with or without it. */
  voice?: boolean;
  /** -1..1: shifts the vocal line by up to an octave down or up. */
  pitch?: number;
}

/** Mulberry32 (src/lib/random.ts): small, fast and identical on every engine. */
export const mulberry32 = seededRandom;

// A table sine: exact across runs, and several times faster than Math.sin per partial.
const TABLE_BITS = 12;
const TABLE_SIZE = 1 << TABLE_BITS;
const SINE = (() => {
  const t = new Float32Array(TABLE_SIZE);
  for (let i = 0; i < TABLE_SIZE; i++) t[i] = Math.sin((2 * Math.PI * i) / TABLE_SIZE);
  return t;
})();

/** Sine of a phase measured in cycles. */
function sin(phase: number): number {
  return SINE[((phase - Math.floor(phase)) * TABLE_SIZE) | 0] as number;
}

function midiHz(note: number): number {
  return 440 * 2 ** ((note - 69) / 12);
}

const MAJOR = [0, 2, 4, 5, 7, 9, 11];
/** Scale degrees (0 = I) of a few familiar four-chord progressions. */
const PROGRESSIONS = [
  [0, 4, 5, 3],
  [5, 3, 0, 4],
  [0, 5, 3, 4],
  [1, 4, 0, 5],
];
/** F1, F2, F3 in Hz for a, e, i, o, u. */
const VOWELS: [number, number, number][] = [
  [730, 1090, 2440],
  [530, 1840, 2480],
  [270, 2290, 3010],
  [570, 840, 2410],
  [300, 870, 2240],
];
const FORMANT_GAIN = [1, 0.5, 0.25];
const FORMANT_WIDTH = [90, 120, 160];

function degreeNote(root: number, degree: number): number {
  const octave = Math.floor(degree / 7);
  return root + 12 * octave + (MAJOR[((degree % 7) + 7) % 7] as number);
}

interface Piece {
  root: number;
  progression: number[];
  chordSeconds: number;
}

function compose(seed: number): Piece {
  const rng = mulberry32(seed ^ 0x5eed);
  return {
    root: 45 + Math.floor(rng() * 12),
    progression: PROGRESSIONS[Math.floor(rng() * PROGRESSIONS.length)] as number[],
    chordSeconds: 1.6 + rng() * 0.8,
  };
}

/** Adds the chords to `left`/`right` (mono signals, mixed into channels later). */
function renderBed(piece: Piece, sampleRate: number, left: Float32Array, right: Float32Array): void {
  const chordLen = Math.round(piece.chordSeconds * sampleRate);
  const attack = 0.04 * sampleRate;
  const release = 0.12 * sampleRate;
  for (let start = 0, k = 0; start < left.length; start += chordLen, k++) {
    const degree = piece.progression[k % piece.progression.length] as number;
    // Bass, then a triad an octave up: root, third, fifth of the scale degree.
    const notes = [degreeNote(piece.root - 12, degree), ...[0, 2, 4].map((d) => degreeNote(piece.root, degree + d))];
    const end = Math.min(left.length, start + chordLen);
    notes.forEach((note, n) => {
      const hz = midiHz(note);
      const pan = n === 0 ? 0 : n % 2 ? -0.5 : 0.5;
      const gl = 0.07 * (1 - pan * 0.5);
      const gr = 0.07 * (1 + pan * 0.5);
      for (let i = start; i < end; i++) {
        const t = (i - start) / sampleRate;
        const fromEnd = end - i;
        const env = Math.min(1, (i - start) / attack, fromEnd / release) * (0.6 + 0.4 * Math.exp(-t * 3));
        const p = hz * t;
        const s = env * (sin(p) + 0.4 * sin(2 * p) + 0.2 * sin(3 * p));
        left[i] = (left[i] as number) + s * gl;
        right[i] = (right[i] as number) + s * gr;
      }
    });
  }
}

/** Adds the vocal line, centred. */
function renderVoice(piece: Piece, seed: number, sampleRate: number, pitch: number, out: Float32Array): void {
  const rng = mulberry32(seed ^ 0x0f0ca1);
  const shift = 2 ** Math.max(-1, Math.min(1, pitch));
  const chordLen = piece.chordSeconds * sampleRate;
  const block = 32;
  const glide = 1 - Math.exp(-block / (0.04 * sampleRate)); // ~40 ms portamento per block
  let f0 = 0;
  let phase = 0;
  let formants = [...(VOWELS[0] as number[])];
  let i = Math.round(0.3 * sampleRate);
  while (i < out.length) {
    // A phrase of 4–8 syllables, then a breath.
    const syllables = 4 + Math.floor(rng() * 5);
    for (let s = 0; s < syllables && i < out.length; s++) {
      const len = Math.round((0.18 + rng() * 0.3) * sampleRate);
      const chordIndex = Math.floor(i / chordLen) % piece.progression.length;
      const degree = (piece.progression[chordIndex] as number) + [0, 2, 4, 7][Math.floor(rng() * 4)]!;
      const target = midiHz(degreeNote(piece.root + 24, degree)) * shift;
      const vowel = VOWELS[Math.floor(rng() * VOWELS.length)] as number[];
      if (f0 === 0) f0 = target;
      const end = Math.min(out.length, i + len);
      const attack = 0.03 * sampleRate;
      const release = 0.07 * sampleRate;
      for (let b = i; b < end; b += block) {
        f0 += (target - f0) * glide;
        formants = formants.map((f, k) => f + ((vowel[k] as number) - f) * glide);
        const t = (b - i) / sampleRate;
        const vibrato = 2 ** ((0.4 * Math.min(1, t * 3) * sin(5.5 * t)) / 12);
        const hz = f0 * vibrato;
        // Harmonic weights from three resonances (a crude vocal tract), normalised to unit peak.
        const count = Math.max(1, Math.min(24, Math.floor(4000 / hz)));
        const weights = new Float32Array(count);
        let sum = 0;
        for (let h = 1; h <= count; h++) {
          let wgt = 0;
          for (let f = 0; f < 3; f++) {
            const d = (h * hz - (formants[f] as number)) / (FORMANT_WIDTH[f] as number);
            wgt += (FORMANT_GAIN[f] as number) / (1 + d * d);
          }
          weights[h - 1] = wgt;
          sum += wgt;
        }
        const stop = Math.min(end, b + block);
        for (let j = b; j < stop; j++) {
          const env = Math.min(1, (j - i) / attack, (end - j) / release);
          let v = 0;
          for (let h = 0; h < count; h++) v += (weights[h] as number) * sin(phase * (h + 1));
          out[j] = (out[j] as number) + (0.3 * env * v) / sum;
          phase += hz / sampleRate;
          if (phase > 1e6) phase -= Math.floor(phase); // keep precision over long clips
        }
      }
      // A short gap between syllables so they read as separate sounds.
      i = end + Math.round(0.03 * sampleRate);
    }
    i += Math.round((0.3 + rng() * 0.5) * sampleRate);
  }
}

/** Interleaved 16-bit samples. */
export function synthesize(opts: SynthOptions): Int16Array {
  const { sampleRate, channels, seed } = opts;
  if (!Number.isInteger(sampleRate) || sampleRate < 8000) throw new RangeError(`bad sampleRate ${sampleRate}`);
  if (!Number.isInteger(channels) || channels < 1 || channels > 8) throw new RangeError(`bad channels ${channels}`);
  const frames = Math.max(0, Math.round(opts.seconds * sampleRate));
  const piece = compose(seed);
  const left = new Float32Array(frames);
  const right = new Float32Array(frames);
  renderBed(piece, sampleRate, left, right);
  const centre = new Float32Array(frames);
  if (opts.voice) renderVoice(piece, seed, sampleRate, opts.pitch ?? 0, centre);

  const out = new Int16Array(frames * channels);
  for (let i = 0; i < frames; i++) {
    const l = (left[i] as number) + (centre[i] as number);
    const r = (right[i] as number) + (centre[i] as number);
    for (let c = 0; c < channels; c++) {
      // Mono sums both sides; channels past the first two carry the centre mix.
      const x = channels === 1 ? (l + r) / 2 : c === 0 ? l : c === 1 ? r : (l + r) / 2;
      out[i * channels + c] = Math.round(Math.max(-1, Math.min(1, x)) * 32767);
    }
  }
  return out;
}
