/** Live SSE streams, so shutdown can tell each to finish (server.close() waits for them otherwise). */
export interface StreamRegistry {
  add(close: () => void): () => void;
  closeAll(): void;
  readonly size: number;
}

export function createStreamRegistry(): StreamRegistry {
  const open = new Set<() => void>();
  return {
    add(close) {
      open.add(close);
      return () => { open.delete(close); };
    },
    closeAll() {
      for (const close of [...open]) close();
    },
    get size() { return open.size; },
  };
}
