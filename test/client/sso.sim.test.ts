/** Single sign-on through the client, against the simulator's OAuth login and its identity provider, over HTTPS. */
import { type Simulator, startSimulator } from '@faultline/platform-sim';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  createPlatformClient,
  type PlatformClient,
  UnauthorizedError,
} from '../../src/client/index.ts';

let sim: Simulator;
let dispatcher: Agent;
let platform: PlatformClient;

beforeAll(async () => {
  sim = await startSimulator();
  dispatcher = new Agent({ connect: { ca: sim.ca } });
  platform = createPlatformClient({ baseUrl: sim.url, dispatcher });
});

afterAll(async () => {
  await platform?.close();
  await dispatcher?.close();
  await sim?.stop();
});

const redirectUri = 'https://faultline.example.test/login/sso/callback';

describe('single sign-on', () => {
  it('starts at the identity provider, and exchanges its code for a company session once', async () => {
    const url = await platform.auth.startSso({ companyName: sim.seed.company.name, redirectUri });
    const state = new URL(url).searchParams.get('state')!;
    // The person signs in at the provider, which sends the browser back with a code.
    const signedIn = await request(new URL('/_idp/authorize', url), {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ state, email: sim.seed.sso.email }).toString(),
    });
    const back = new URL(String(signedIn.headers.location));
    await signedIn.body.dump();
    const code = back.searchParams.get('code')!;

    const session = await platform.auth.finishSso({ code, state });
    expect(session).toMatchObject({ identifier: sim.seed.sso.email, company_name: sim.seed.company.name });
    await expect(platform.auth.finishSso({ code, state })).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(
      platform.auth.startSso({ companyName: sim.seed.otherCompany.name, redirectUri }),
    ).rejects.toBeInstanceOf(BadRequestError);

    const owner = await platform.auth.login(sim.seed.users.owner);
    const failures = await platform.auth.ssoFailures({ header: owner.header });
    expect(failures[0]).toMatchObject({ email: sim.seed.sso.email, reason: 'The code or state was used already' });
    expect(await platform.auth.ssoFailures({ header: owner.header }, 'former@acme.test')).toHaveLength(1);
  });
});
