/** The people and channels of the playground's workspace: fixed, so links and habits carry over between runs. */
export interface PlaygroundPerson {
  id: string;
  name: string;
}

export interface PlaygroundChannel {
  id: string;
  name: string;
}

export const PLAYGROUND_PEOPLE: readonly PlaygroundPerson[] = [
  { id: 'U0ALICE', name: 'alice' },
  { id: 'U0BOB', name: 'bob' },
  { id: 'U0CAROL', name: 'carol' },
];

export const PLAYGROUND_CHANNELS: readonly PlaygroundChannel[] = [
  { id: 'C0GENERAL', name: 'general' },
  { id: 'C0GAMEDAY', name: 'gameday' },
];

/** A platform login the page suggests, with a line saying what it is good for. */
export interface DemoLogin {
  email: string;
  summary: string;
}

/** What the page shows next to the composer so a newcomer knows how to get in. */
export interface LoginHints {
  password: string;
  mfaCode: string;
  logins: DemoLogin[];
}
