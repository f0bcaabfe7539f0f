import { createClient } from '@redis/client';

/** Deletes every key a test left under `prefix` on a shared Redis, so runs never see each other's. */
export async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length) await client.del(keys);
  } finally {
    await client.quit();
  }
}
