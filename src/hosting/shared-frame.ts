/**
 * Bytes that many connections receive unchanged (an SSE event of a conversation, a `: ping`):
 * encoded once, and framed once more as one HTTP/1.1 chunk, so a fan-out to N sockets is N
 * writes of the same Buffer — no per-connection encoding, chunk header or copy (see nodeSink).
 */
export class SharedFrame {
  private chunkBytes: Buffer | undefined;

  constructor(readonly bytes: Buffer) {}

  static of(text: string): SharedFrame {
    return new SharedFrame(Buffer.from(text));
  }

  /** `<length in hex>\r\n<bytes>\r\n`: exactly what Node's chunked encoding writes for `bytes`. */
  get chunk(): Buffer {
    if (this.chunkBytes === undefined) {
      const head = `${this.bytes.length.toString(16)}\r\n`;
      const chunk = Buffer.allocUnsafeSlow(head.length + this.bytes.length + 2);
      chunk.write(head, 0, 'latin1');
      this.bytes.copy(chunk, head.length);
      chunk.write('\r\n', head.length + this.bytes.length, 'latin1');
      this.chunkBytes = chunk;
    }
    return this.chunkBytes;
  }

  /** One frame holding `frames` in order (a batch every subscriber of a conversation receives whole). */
  static concat(frames: readonly SharedFrame[]): SharedFrame {
    return frames.length === 1 ? frames[0]! : new SharedFrame(Buffer.concat(frames.map((f) => f.bytes)));
  }
}
