/**
 * Bytes that many connections receive unchanged (an SSE event of a conversation, a `: ping`):
 * encoded once, and framed once more as one HTTP/1.1 chunk, so a fan-out to N sockets is N
 * writes of the same Buffer — no per-connection encoding, chunk header or copy (see nodeSink).
 */
const CRLF = Buffer.from('\r\n', 'latin1');

export class SharedFrame {
  private chunkBytes: Buffer | undefined;

  constructor(readonly bytes: Buffer) {}

  static of(text: string): SharedFrame {
    return new SharedFrame(Buffer.from(text));
  }

  /** `<length in hex>\r\n<bytes>\r\n`: exactly what Node's chunked encoding writes for `bytes`. */
  get chunk(): Buffer {
    if (this.chunkBytes === undefined) {
      this.chunkBytes = Buffer.concat([Buffer.from(`${this.bytes.length.toString(16)}\r\n`, 'latin1'), this.bytes, CRLF]);
    }
    return this.chunkBytes;
  }
}
