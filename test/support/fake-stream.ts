/**
 * How the fake model servers stream an answer: the answer's text in pieces at a set pace, then
 * how the stream ends. `done` ends it as the API documents; `cut` closes the connection without
 * the final frame (the end of a lost connection or `done` never sent); `error` sends the API's
 * error frame; `stall` stops sending and keeps the connection open; `reset` destroys the socket.
 */
export interface FakeStream {
  kind: 'stream';
  pieces: string[];
  /** Time between pieces. */
  paceMs: number;
  end?: 'done' | 'cut' | 'error' | 'stall' | 'reset';
  /** Called as each piece is written (index, time from performance.now()). */
  onPiece?: (index: number, at: number) => void;
}

/** `text` in pieces of `size` characters (the last may be shorter). */
export function piecesOf(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/**
 * Writes the pieces at the pace; `frame(piece)` and `last()` are the wire frames of the
 * provider. Resolves when the stream ended as scripted (or the client went away).
 */
export async function writeStream(
  res: import('node:http').ServerResponse, req: import('node:http').IncomingMessage, s: FakeStream,
  wire: { frame(piece: string): string; done(): string; error(): string }, timers: Set<NodeJS.Timeout>,
): Promise<void> {
  const wait = (ms: number): Promise<void> => new Promise((resolve) => {
    const t = setTimeout(() => { timers.delete(t); resolve(); }, ms);
    timers.add(t);
  });
  for (const [i, piece] of s.pieces.entries()) {
    if (i > 0 && s.paceMs > 0) await wait(s.paceMs);
    if (res.destroyed) return;
    res.write(wire.frame(piece));
    s.onPiece?.(i, performance.now());
  }
  if (s.paceMs > 0) await wait(s.paceMs);
  if (res.destroyed) return;
  switch (s.end ?? 'done') {
    case 'done': res.end(wire.done()); return;
    case 'cut': res.end(); return;
    case 'error': res.end(wire.error()); return;
    case 'reset': req.socket.destroy(); return;
    case 'stall': return;
  }
}
