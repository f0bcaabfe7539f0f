import { Agent, request } from 'undici';
import { afterAll, afterEach } from 'vitest';
import { startSimulator, type DemoUser, type Simulator, type SimulatorOptions } from '../src/index.ts';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = any>(): T;
}

export interface CallOptions {
  /** The Authorization header value. */
  auth?: string;
  teamId?: string;
  query?: Record<string, string | string[]>;
  form?: Record<string, string>;
  json?: unknown;
  /** Send over the plain-HTTP port instead of HTTPS. */
  plainHttp?: boolean;
  signal?: AbortSignal;
}

/** Plain undici requests against a running simulator, over real HTTPS with its certificate trusted. */
export class SimApi {
  readonly sim: Simulator;
  readonly agent: Agent;

  constructor(sim: Simulator) {
    this.sim = sim;
    this.agent = new Agent({ connect: { ca: sim.ca } });
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const url = new URL(`${options.plainHttp ? this.sim.httpUrl : this.sim.url}${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, item);
    }
    if (options.teamId) url.searchParams.set('teamId', options.teamId);
    const headers: Record<string, string> = {};
    if (options.auth) headers.authorization = options.auth;
    let body: string | undefined;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await request(url, {
      method: method as 'GET',
      headers,
      body,
      dispatcher: this.agent,
      signal: options.signal,
    });
    const text = await response.body.text();
    return {
      status: response.statusCode,
      headers: response.headers,
      text,
      json: () => JSON.parse(text),
    };
  }

  /** A company session (the kind the bot uses). */
  async companySession(user: DemoUser, mfaCode?: string): Promise<CompanySession> {
    const answer = await this.call('POST', mfaCode ? '/users/auth/mfa/auth' : '/users/auth', {
      query: { getCompanySession: 'true' },
      form: { email: user.email, password: user.password, ...(mfaCode ? { token: mfaCode } : {}) },
    });
    if (answer.status !== 200) throw new Error(`Login of ${user.email} failed: ${answer.status} ${answer.text}`);
    return answer.json<CompanySession>();
  }

  /** The Authorization header of a fresh company session. */
  async companyAuth(user: DemoUser, mfaCode?: string): Promise<string> {
    return (await this.companySession(user, mfaCode)).header;
  }

  /** One team (org) session per team of the user. */
  async teamSessions(user: DemoUser): Promise<TeamSession[]> {
    const answer = await this.call('POST', '/users/auth', { form: { email: user.email, password: user.password } });
    if (answer.status !== 200) throw new Error(`Login of ${user.email} failed: ${answer.status} ${answer.text}`);
    return answer.json<TeamSession[]>();
  }

  /** Starts an attack with POST /attacks/new and returns its guid. */
  async createAttack(
    auth: string,
    teamId: string,
    input: { type?: string; args?: string[]; target?: unknown } = {},
  ): Promise<string> {
    const answer = await this.call('POST', '/attacks/new', {
      auth,
      teamId,
      json: {
        command: { type: input.type ?? 'cpu', args: input.args ?? ['-l', '60'] },
        target: input.target ?? { type: 'Random' },
      },
    });
    if (answer.status !== 201) throw new Error(`Attack not created: ${answer.status} ${answer.text}`);
    return answer.text;
  }

  /** The attack as GET /attacks/{guid} shows it. */
  async getAttack(auth: string, teamId: string, guid: string) {
    const answer = await this.call('GET', `/attacks/${guid}`, { auth, teamId });
    if (answer.status !== 200) throw new Error(`Attack ${guid} not read: ${answer.status} ${answer.text}`);
    return answer.json();
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

export interface TeamSession {
  expires_at: string;
  header: string;
  identifier: string;
  org_id: string;
  org_name: string;
  renew_token: string;
  role: string;
  token: string;
}

export interface CompanySession {
  company_id: string;
  company_name: string;
  roles: string[];
  privileges: string[];
  expires_at: string;
  header: string;
  identifier: string;
  teams: Array<{ identifier: string; name: string; company_id: string; roles: string[]; privileges: string[] }>;
  last_login: string;
  renew_token: string;
  token: string;
}

/**
 * A simulator for the test file that awaits this at its top level. Its state goes back to the seed
 * after each test, unless `keepState` (for a file that adds to the seed once for all its tests),
 * and it stops after the file's last test.
 */
export async function simulatorForFile(
  options: SimulatorOptions = {},
  { keepState = false } = {},
): Promise<{ sim: Simulator; api: SimApi }> {
  const sim = await startSimulator(options);
  const api = new SimApi(sim);
  if (!keepState) afterEach(() => sim.reset());
  afterAll(async () => {
    await api.close();
    await sim.stop();
  });
  return { sim, api };
}
