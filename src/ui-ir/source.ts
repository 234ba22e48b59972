import { createHash, randomBytes } from 'node:crypto';

/**
 * Where time and nonces come from. Transitions never call a clock or a random generator:
 * the runner draws here and passes plain values in, and the values drawn are recorded so a
 * replay reproduces byte-identical output.
 */
export interface EntropySource {
  now(): string;
  nonce(): string;
}

export interface Draw {
  now: string;
  nonce: string;
}

export function draw(source: EntropySource): Draw {
  return { now: source.now(), nonce: source.nonce() };
}

const SEEDED_EPOCH_MS = Date.UTC(2026, 0, 1);

/** Deterministic: nonce i = SHA-256(seed:i); the clock starts at 2026-01-01 and ticks 1 s per read. */
export function createSeededSource(seed: string, startMs = SEEDED_EPOCH_MS): EntropySource {
  let ticks = 0;
  let count = 0;
  return {
    now: () => new Date(startMs + 1000 * ticks++).toISOString(),
    nonce: () => createHash('sha256').update(`${seed}:${count++}`).digest('base64url').slice(0, 22),
  };
}

const NONCE_BYTES = 16;
const POOL_BYTES = 256 * NONCE_BYTES;

/**
 * Url-safe random tokens of `bytes` CSPRNG bytes (base64url), cut from a pool filled POOL_BYTES
 * at a time: one randomBytes call per token was a visible share of an action round trip (a call
 * into OpenSSL each time). No byte is ever handed out twice; a token longer than the pool gets a
 * randomBytes call of its own.
 */
export function createRandomTokens(): (bytes: number) => string {
  let pool = Buffer.alloc(0);
  let offset = 0;
  return (bytes) => {
    if (bytes > POOL_BYTES) return randomBytes(bytes).toString('base64url');
    if (offset + bytes > pool.length) {
      pool = randomBytes(POOL_BYTES);
      offset = 0;
    }
    offset += bytes;
    return pool.toString('base64url', offset - bytes, offset);
  };
}

/** Clock and CSPRNG. Nonces are 16 random bytes each (createRandomTokens: 256 nonces per randomBytes call). */
export function createSystemSource(clock: () => number = Date.now): EntropySource {
  const token = createRandomTokens();
  return {
    now: () => new Date(clock()).toISOString(),
    nonce: () => token(NONCE_BYTES),
  };
}

export type RecordedDraw = { kind: 'now' | 'nonce'; value: string };

/** Wraps a source and remembers every value it handed out, in order. */
export function createRecordingSource(inner: EntropySource): EntropySource & { drawn: RecordedDraw[] } {
  const drawn: RecordedDraw[] = [];
  return {
    drawn,
    now: () => { const value = inner.now(); drawn.push({ kind: 'now', value }); return value; },
    nonce: () => { const value = inner.nonce(); drawn.push({ kind: 'nonce', value }); return value; },
  };
}

/** Plays recorded values back; asking for more than was recorded, or another kind, is an error. */
export function createReplaySource(recorded: readonly RecordedDraw[]): EntropySource {
  let i = 0;
  const next = (kind: RecordedDraw['kind']): string => {
    const entry = recorded[i++];
    if (entry === undefined || entry.kind !== kind) {
      throw new Error(`replay diverged at draw ${i - 1}: wanted ${kind}, recorded ${entry?.kind ?? 'nothing'}`);
    }
    return entry.value;
  };
  return { now: () => next('now'), nonce: () => next('nonce') };
}
