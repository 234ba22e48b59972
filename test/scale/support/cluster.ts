import { HttpClient, type RequestOptions } from '../../support/http-client.ts';
import { startRedisCluster, type TestRedisCluster } from '../../support/redis-cluster.ts';
import { startRedis, type TestRedis } from '../../support/redis-server.ts';
import { startRedisProxy, type RedisProxy } from './redis-proxy.ts';
import { postEvent, startE2e, type Conversation, type E2eOptions, type E2eServer } from '../../e2e/support/stack.ts';

/**
 * Several instances of the product (startServe, as `npm start --redis URL` composes it) over
 * one real redis-server, and the traffic a test sends them: every answer's status is recorded,
 * so a test can assert that nothing answered 5xx except where it allows it.
 */
export interface Answer {
  instance: string;
  route: string;
  status: number;
}

export class Traffic {
  readonly answers: Answer[] = [];

  record(instance: string, route: string, status: number): void {
    this.answers.push({ instance, route, status });
  }

  /** Every 5xx not allowed by `allowed` (e.g. a 503 during an outage). */
  serverErrors(allowed: (answer: Answer) => boolean = () => false): Answer[] {
    return this.answers.filter((a) => a.status >= 500 && !allowed(a));
  }
}

/** `R`: one redis-server (TestRedis) or a Redis Cluster (TestRedisCluster, its `url` the seed list). */
export interface Cluster<R extends { url: string; stop(): Promise<void> } = TestRedis> {
  redis: R;
  /** With `proxied`: what the instances connect through. */
  proxy?: RedisProxy;
  prefix: string;
  instances: E2eServer[];
  traffic: Traffic;
  /** One browser session usable on every instance (its cookie is signed with the shared secret). */
  clients: SessionClient[];
  /** A client of the same session for another instance (e.g. one run as a child process). */
  clientFor(url: string, name: string): SessionClient;
  /** Stops every instance, then the proxy and Redis. */
  stop(): Promise<void>;
}

export async function startCluster(
  count: number, prefix: string, options: Omit<E2eOptions, 'redis'> & { proxied?: boolean } = {},
): Promise<Cluster> {
  const { proxied, ...e2e } = options;
  const redis = await startRedis();
  const proxy = proxied ? await startRedisProxy(redis) : undefined;
  return startInstances(redis, proxy, count, prefix, e2e);
}

/** The same over a local 6-node Redis Cluster (test/support/redis-cluster.ts): the instances get its seed URLs. */
export async function startOnRedisCluster(count: number, prefix: string, options: Omit<E2eOptions, 'redis'> = {}): Promise<Cluster<TestRedisCluster>> {
  return startInstances(await startRedisCluster(), undefined, count, prefix, options);
}

async function startInstances<R extends { url: string; stop(): Promise<void> }>(
  redis: R, proxy: RedisProxy | undefined, count: number, prefix: string, e2e: Omit<E2eOptions, 'redis'>,
): Promise<Cluster<R>> {
  const instances: E2eServer[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(instances.map((s) => s.close()));
    await proxy?.close();
    await redis.stop();
  };
  try {
    for (let i = 0; i < count; i += 1) instances.push(await startE2e({}, { ...e2e, redis: { url: proxy?.url ?? redis.url, prefix } }));
  } catch (error) {
    await stop();
    throw error;
  }
  const traffic = new Traffic();
  const jar = new Map<string, string>();
  const clients = instances.map((s, i) => new SessionClient(s.url, `i${i}`, jar, traffic));
  return {
    redis, prefix, instances, traffic, clients, stop,
    ...(proxy ? { proxy } : {}),
    clientFor: (url, name) => new SessionClient(url, name, jar, traffic),
  };
}

/** An HttpClient that records every answer and shares its cookies with the session's other clients. */
export class SessionClient extends HttpClient {
  constructor(baseUrl: string, readonly instance: string, private readonly jar: Map<string, string>, private readonly traffic: Traffic) {
    super(baseUrl);
  }

  override cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  override async request(path: string, options: RequestOptions = {}): Promise<Response> {
    this.cookies.clear();
    for (const [name, value] of this.jar) this.cookies.set(name, value);
    const response = await super.request(path, options);
    this.jar.clear();
    for (const [name, value] of this.cookies) this.jar.set(name, value);
    this.traffic.record(this.instance, `${options.method ?? 'GET'} ${routeOf(path)}`, response.status);
    return response;
  }

  /** POST /a2ui/c/{cid}/events as the A2UI client sends it (bearer token, optional idempotency key). */
  async a2uiEvent(c: Conversation, body: unknown, key?: string): Promise<Awaited<ReturnType<typeof postEvent>>> {
    const answer = await postEvent({ url: this.baseUrl }, c, body, key === undefined ? {} : { 'Idempotency-Key': key });
    this.traffic.record(this.instance, 'POST /a2ui/c/:cid/events', answer.status);
    return answer;
  }
}

function routeOf(path: string): string {
  return path.replace(/^\/c\/[^/?]+/, '/c/:cid').replace(/\?.*$/, '');
}
