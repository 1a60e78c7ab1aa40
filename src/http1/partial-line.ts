/**
 * The start of a line whose end has not arrived yet. The parser reads the socket's buffer in place,
 * and the next read overwrites that buffer, so only this unfinished line is copied, into a buffer
 * that grows by doubling and is reused for the connection's life.
 */
export class PartialLine {
  /** Bytes held; 0 when no line is unfinished. */
  length = 0;
  #buffer: Buffer | undefined;

  /** Appends `data[start, end)` and returns the buffer that holds the line in `[0, length)`. */
  append(data: Buffer, start: number, end: number): Buffer {
    const needed = this.length + end - start;
    let buffer = this.#buffer;
    if (buffer === undefined || buffer.length < needed) {
      const grown = Buffer.allocUnsafe(Math.max(needed, 2 * (buffer?.length ?? 128)));
      if (buffer !== undefined) buffer.copy(grown, 0, 0, this.length);
      this.#buffer = buffer = grown;
    }
    data.copy(buffer, this.length, start, end);
    this.length = needed;
    return buffer;
  }
}
