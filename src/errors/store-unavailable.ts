/**
 * The store cannot be reached (e.g. Redis is down): the thrown form of STORE_UNAVAILABLE, for the
 * ports that throw rather than return (a conversation store, an app effect saving into the
 * backend's shared records). Distinct from a failed append: callers answer 503 with a retry hint
 * and acknowledge nothing. Here, beside the registry, so the conversation store and the ingress
 * (which the conversation service drives) both name it without importing each other.
 */
export class StoreUnavailableError extends Error {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(detail, options);
    this.name = 'StoreUnavailableError';
  }
}
