/**
 * A tiny browser-like HTTP client for end-to-end tests over real sockets: a cookie jar, no
 * automatic redirects, and an Origin header on unsafe requests (as browsers send), which a test
 * can override or drop.
 */
export type FormBody = Record<string, string | readonly string[]>;

export interface RequestOptions {
  method?: string;
  form?: FormBody;
  multipart?: FormBody;
  json?: unknown;
  headers?: Record<string, string>;
  /** `htmx` adds HX-Request: true; `json` asks for JSON. Default: a plain browser navigation. */
  as?: 'browser' | 'htmx' | 'json';
  /** Origin header for unsafe methods: default the server's own; null sends none. */
  origin?: string | null;
}

export class HttpClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(path: string, options: RequestOptions = {}): Promise<Response> {
    const method = options.method ?? (options.form || options.multipart || options.json !== undefined ? 'POST' : 'GET');
    const headers = new Headers(options.headers);
    if (this.cookies.size > 0) headers.set('cookie', this.cookieHeader());
    if (options.as === 'htmx') { headers.set('HX-Request', 'true'); headers.set('Accept', 'text/html'); }
    if (options.as === 'json') headers.set('Accept', 'application/json');
    if (method !== 'GET' && method !== 'HEAD') {
      const origin = options.origin === undefined ? new URL(this.baseUrl).origin : options.origin;
      if (origin !== null) headers.set('Origin', origin);
    }
    let body: BodyInit | undefined;
    if (options.form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(options.form)) for (const item of typeof v === 'string' ? [v] : v) params.append(k, item);
      body = params;
    } else if (options.multipart) {
      const data = new FormData();
      for (const [k, v] of Object.entries(options.multipart)) for (const item of typeof v === 'string' ? [v] : v) data.append(k, item);
      body = data;
    } else if (options.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(options.json);
    }
    const response = await fetch(new URL(path, this.baseUrl), { method, headers, body, redirect: 'manual' });
    this.store(response);
    return response;
  }

  get(path: string, options: Omit<RequestOptions, 'method'> = {}): Promise<Response> {
    return this.request(path, { ...options, method: 'GET' });
  }

  post(path: string, form: FormBody, options: Omit<RequestOptions, 'method' | 'form'> = {}): Promise<Response> {
    return this.request(path, { ...options, method: 'POST', form });
  }

  /** GET, following redirects (as a browser would after a 303). */
  async follow(response: Response): Promise<Response> {
    let current = response;
    for (let i = 0; i < 5 && current.status >= 300 && current.status < 400; i++) {
      const location = current.headers.get('location');
      if (!location) break;
      await current.arrayBuffer();
      current = await this.get(location);
    }
    return current;
  }

  private store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))
        || attributes.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=').slice(1).join('=')) < Date.now());
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}
