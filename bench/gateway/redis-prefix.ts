/** Deletes the Redis keys a bench run made under its own prefix. */
import { Redis } from 'ioredis';

export async function dropRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const r = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await r.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}
