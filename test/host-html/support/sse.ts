/** Reads SSE events from a fetch Response body (for tests). */
export interface SseEvent { event?: string; id?: string; data: string }

export function sseReader(response: Response): { next(timeoutMs?: number): Promise<SseEvent>; close(): Promise<void> } {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const pending: SseEvent[] = [];
  function drain(): void {
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event: SseEvent = { data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data.push(value);
        else if (field === 'event') event.event = value;
        else if (field === 'id') event.id = value;
      }
      if (data.length > 0) { event.data = data.join('\n'); pending.push(event); }
    }
  }
  return {
    async next(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (pending.length === 0) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('no SSE event in time');
        const chunk = await Promise.race([
          reader.read(),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no SSE event in time')), left)),
        ]);
        if (chunk.done) throw new Error('SSE stream ended');
        buffer += chunk.value;
        drain();
      }
      return pending.shift()!;
    },
    async close() { await reader.cancel().catch(() => undefined); },
  };
}
