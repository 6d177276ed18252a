/**
 * Text split into lines as it arrives, for files too large to hold (a batch's 100 MiB input): only
 * the line being gathered and the chunk at hand are kept. A line ends at "\n", with a "\r" before
 * it dropped (CRLF files); a last line without a newline is a line too. Bytes are decoded with a
 * streaming decoder, so a character split across two chunks is joined, and bytes that are not
 * UTF-8 throw (TypeError) rather than become U+FFFD.
 */

/** Lines from pieces of text, in order. `push` gives the lines each piece completes; `end` the last one, if any. */
export class LineSplitter {
  private partial = "";

  push(text: string): string[] {
    // A long line arriving in many chunks is only appended to, never split again from its start.
    if (!text.includes("\n")) {
      this.partial += text;
      return [];
    }
    const parts = text.split("\n");
    parts[0] = this.partial + parts[0];
    this.partial = parts.pop() as string;
    return parts.map(dropCR);
  }

  end(): string[] {
    const rest = this.partial;
    this.partial = "";
    return rest === "" ? [] : [dropCR(rest)];
  }

  /** Characters of the line still open (to bound a line's length before its end arrives). */
  get pending(): number {
    return this.partial.length;
  }
}

/** The length of a string in UTF-8 bytes, without encoding it. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      // A surrogate pair is one character of four bytes.
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function dropCR(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** A TransformStream of text into lines (after a TextDecoderStream). */
export function lineStream(): TransformStream<string, string> {
  const splitter = new LineSplitter();
  return new TransformStream<string, string>({
    transform(text, controller) {
      for (const line of splitter.push(text)) controller.enqueue(line);
    },
    flush(controller) {
      for (const line of splitter.end()) controller.enqueue(line);
    },
  });
}

/** The lines of UTF-8 bytes: ReadableStream → TextDecoderStream (fatal) → lines. */
export function linesOf(bytes: ReadableStream<Uint8Array>): ReadableStream<string> {
  return bytes
    .pipeThrough(new TextDecoderStream("utf-8", { fatal: true }) as TransformStream<Uint8Array, string>)
    .pipeThrough(lineStream());
}
