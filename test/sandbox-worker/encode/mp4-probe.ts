/** Test helper: parses MP4/MOV bytes with mp4box and returns its summary and sample bytes. */
import { createFile, type Movie, MP4BoxBuffer } from "mp4box";

export interface Probe {
  info: Movie;
  samples(trackId: number): {
    data: Uint8Array;
    isSync: boolean;
    duration: number;
    dts: number;
    cts: number;
    /** The sample entry's index in stsd (from 0) and the entry itself, as mp4box parsed it. */
    entry: number;
    description: any;
  }[];
}

export async function probe(bytes: Uint8Array): Promise<Probe> {
  const file = createFile();
  const ready = new Promise<Movie>((resolve, reject) => {
    file.onReady = resolve;
    file.onError = (module, message) => reject(new Error(`${module}: ${message}`));
  });
  file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(bytes.slice().buffer, 0));
  file.flush();
  const info = await ready;
  return {
    info,
    samples: (trackId) =>
      file.getTrackSamplesInfo(trackId).map((s) => ({
        data: bytes.subarray(s.offset, s.offset + s.size),
        isSync: s.is_sync,
        duration: s.duration,
        dts: s.dts,
        cts: s.cts,
        entry: s.description_index,
        description: s.description,
      })),
  };
}

/** The major brand, read straight from the ftyp box. */
export function majorBrand(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes.subarray(8, 12));
}
