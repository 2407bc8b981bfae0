import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, startRedisServer, type Proc } from '../../scripts/cluster.ts';

/**
 * A redis-server of the test's own on a free port, which the test stops and starts again (on the
 * same port) to see what the product does while Redis is down. Data is kept across a restart
 * only when `stop({ keepData: true })` asked for it (SHUTDOWN SAVE, loaded again at start).
 */
export interface PrivateRedis {
  url: string;
  port: number;
  isRunning(): boolean;
  start(): Promise<void>;
  stop(options?: { keepData?: boolean }): Promise<void>;
  /** SIGSTOP: the port still accepts connections but nothing is answered, until `resume`. */
  pause(): void;
  resume(): void;
  /** Stops it for good and removes its directory. */
  remove(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'alertwall-redis-'));
  let proc: Proc | null = null;
  const start = async () => {
    if (proc) return;
    proc = await startRedisServer(port, dir);
  };
  const stop = async ({ keepData = false } = {}) => {
    const running = proc;
    if (!running) return;
    proc = null;
    if (keepData) {
      const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
      await client.connect();
      await client.call('SHUTDOWN', 'SAVE').catch(() => {});
      client.disconnect();
      await running.exited;
    } else {
      rmSync(join(dir, 'dump.rdb'), { force: true });
      await running.stop('SIGKILL');
    }
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    isRunning: () => proc !== null,
    start,
    stop,
    pause: () => (proc ? void process.kill(proc.child.pid!, 'SIGSTOP') : undefined),
    resume: () => (proc ? void process.kill(proc.child.pid!, 'SIGCONT') : undefined),
    async remove() {
      if (proc) process.kill(proc.child.pid!, 'SIGCONT');
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
