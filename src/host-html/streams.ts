/** Live SSE streams, so shutdown can tell each to finish (server.close() waits for them otherwise). */
export interface StreamRegistry {
  /** `close` is called with 'shutdown' when the server stops. */
  add(close: (reason: 'shutdown') => void): () => void;
  closeAll(): void;
  readonly size: number;
}

export function createStreamRegistry(): StreamRegistry {
  const open = new Set<(reason: 'shutdown') => void>();
  return {
    add(close) {
      open.add(close);
      return () => { open.delete(close); };
    },
    closeAll() {
      for (const close of [...open]) close('shutdown');
    },
    get size() { return open.size; },
  };
}
