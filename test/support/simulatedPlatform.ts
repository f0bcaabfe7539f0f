import { type Simulator, startSimulator } from '@faultline/platform-sim';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createPlatformClient, type PlatformClient } from '../../src/client/index.ts';
import { createLogger } from '../../src/logger.ts';

/**
 * The simulator over HTTPS and a platform client for it, shared by a file's tests and reset
 * before each: `platformForFile((backend) => ({ sim, platform } = backend))`.
 */
export function platformForFile(assign: (backend: { sim: Simulator; platform: PlatformClient }) => void): void {
  let sim: Simulator | undefined;
  let dispatcher: Agent | undefined;
  let platform: PlatformClient | undefined;
  beforeAll(async () => {
    sim = await startSimulator();
    dispatcher = new Agent({ connect: { ca: sim.ca } });
    platform = createPlatformClient({ baseUrl: sim.url, dispatcher, logger: createLogger('silent') });
    assign({ sim, platform });
  });
  afterAll(async () => {
    await platform?.close();
    await dispatcher?.close();
    await sim?.stop();
  });
  beforeEach(() => sim?.reset());
}
