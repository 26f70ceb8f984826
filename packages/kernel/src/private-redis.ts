import net from 'node:net';

/**
 * Test-only: a redis-server of the test's own on a free port, to stop and start again without touching
 * the shared one (Redis outages, a restart that empties it). Nothing kept on disk.
 */
export class PrivateRedis {
  private server: Bun.Subprocess | undefined;

  private constructor(readonly port: number) {}

  /** True when `redis-server` is installed (a test is skipped otherwise). */
  static readonly available = Bun.which('redis-server') !== null;

  /** A free port picked now; the server is not started yet. */
  static async create(): Promise<PrivateRedis> {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    return new PrivateRedis(port);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  /** Starts it and waits (up to 5 s) until it accepts connections. */
  async start(): Promise<void> {
    this.server = Bun.spawn(['redis-server', '--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdout: 'ignore', stderr: 'ignore' });
    const end = Date.now() + 5000;
    while (!(await this.accepts())) {
      if (Date.now() > end) throw new Error('timed out waiting for the private redis-server');
      await Bun.sleep(50);
    }
  }

  /** Kills it at once (an outage, not a shutdown). */
  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    s?.kill('SIGKILL');
    await s?.exited;
  }

  private accepts(): Promise<boolean> {
    return new Promise((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port: this.port }, () => (s.end(), resolve(true)));
      s.on('error', () => resolve(false));
    });
  }
}
