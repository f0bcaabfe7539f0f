/**
 * Properties of every modal submission, through the real adapter and handlers with the
 * simulator behind them: for arbitrary field values the answer is a result or field errors
 * (never a crash, an error log or an unhandled rejection), and input that is not valid never
 * reaches the platform.
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { builtInCatalogue } from '../../src/client/catalogue.ts';
import type { IssueMeta } from '../../src/client/schemas.ts';
import { listeners } from '../../src/listeners.ts';
import { createMetrics } from '../../src/metrics.ts';
import { SlackAdapter } from '../../src/slack/adapter.ts';
import {
  ATTACK_BUILDER_VIEW,
  ATTACK_LENGTH,
  ATTACK_TARGET_COUNT,
  ATTACK_TARGET_KIND,
  ATTACK_TARGET_VALUES,
  ATTACK_TEAM,
  ATTACK_TYPE_SELECT,
  attackArgId,
} from '../../src/views/attacks/builderFields.ts';
import { attackRefValue } from '../../src/views/attacks/attackCard.ts';
import { LOGIN_VIEW, loginFields, RESET_PASSWORD_VIEW } from '../../src/views/login/login.ts';
import { NOTE_TEXT, NOTE_VIEW } from '../../src/views/attacks/note.ts';
import { TEAM_CHOICE, TEAM_PICKER_VIEW } from '../../src/views/login/team.ts';
import {
  TICKET_DESCRIPTION,
  TICKET_ISSUE_TYPE_ID,
  TICKET_LABELS,
  TICKET_PROJECT_ID,
  TICKET_PROJECT_VIEW,
  TICKET_SUMMARY,
  TICKET_VIEW,
  ticketFieldId,
} from '../../src/views/tickets/ticket.ts';
import { ticketInputFields } from '../../src/tickets/service.ts';
import { RecordingApp, viewDelivery } from '../support/bolt.ts';
import { Stack } from './harness.ts';

const channel = 'C0GENERAL';
let stack: Stack;
let app: RecordingApp;
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onRejection);
  stack = await Stack.start();
  app = new RecordingApp();
  new SlackAdapter(stack.built.services, { store: stack.built.store, metrics: createMetrics() }).register(
    app.app,
    listeners,
  );
}, 30_000);

afterEach(() => {
  expect(rejections).toEqual([]);
  expect(stack.errorLogs()).toEqual([]);
});

afterAll(async () => {
  process.off('unhandledRejection', onRejection);
  await stack?.stop();
});

/** Submits a modal through the adapter; gives its one ack and the platform calls it caused. */
let forms = 0;

async function submit(
  callbackId: string,
  userId: string,
  inputs: Record<string, string | undefined>,
  privateMetadata = '',
) {
  const values = Object.fromEntries(
    Object.entries(inputs).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const delivery = viewDelivery(callbackId, values, {
    userId,
    privateMetadata,
    workspaceId: stack.fake.teamId,
    viewId: `V0FORM${++forms}`,
  });
  const before = stack.sim.requests.length;
  await app.deliver('view', callbackId, delivery);
  expect(delivery.acks).toHaveLength(1);
  const ack = delivery.acks[0] as { response_action?: string; errors?: Record<string, string> } | undefined;
  if (ack?.response_action === 'errors') {
    for (const message of Object.values(ack.errors ?? {})) expect(message).toMatch(/\S/);
  }
  return { ack, calls: stack.sim.requests.slice(before), errorLogs: stack.errorLogs() };
}

/** Field values as people type or paste them, and as they should not. */
const text = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\t',
    '\u00a0',
    '0',
    '-4',
    '1',
    '30',
    '100',
    '500',
    '1000000',
    '1.5',
    '1e3',
    'NaN',
    '99999999999999999999',
    '__proto__',
    '<!channel>',
    'role=web',
    'true',
    '"',
    "'",
  ),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.integer().map(String),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const runs = { numRuns: 60 };

let people = 0;
async function loggedIn(team = 'Platform') {
  const id = `U0PROP${++people}`;
  await stack.login(id, stack.sim.seed.users.owner, { team });
  return id;
}

describe('the login form', () => {
  const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
  it('answers field errors and calls nothing for input that is not valid', async () => {
    const id = 'U0PROPLOGIN';
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          email: maybe(fc.oneof(text, fc.emailAddress())),
          password: maybe(text),
          company: maybe(text),
          mfa: maybe(fc.oneof(text, fc.stringMatching(/^\d{6}$/))),
        }),
        async ({ email, password, company, mfa }) => {
          const { ack, calls } = await submit(LOGIN_VIEW, id, {
            [loginFields.email]: email,
            [loginFields.password]: password,
            [loginFields.company]: company,
            [loginFields.mfa]: mfa,
          });
          const code = mfa?.replace(/\s/g, '');
          const invalid =
            !emailPattern.test(email?.trim() ?? '') ||
            !password ||
            (code !== undefined && code !== '' && !/^\d{6}$/.test(code));
          if (invalid) {
            expect(ack?.response_action).toBe('errors');
            expect(calls).toEqual([]);
          } else {
            expect(['errors', 'update']).toContain(ack?.response_action);
          }
        },
      ),
      runs,
    );
  });

  it('asks the platform for a reset e-mail only for an address', async () => {
    await fc.assert(
      fc.asyncProperty(maybe(fc.oneof(text, fc.emailAddress())), async (email) => {
        const { ack, calls } = await submit(RESET_PASSWORD_VIEW, 'U0PROPRESET', { [loginFields.resetEmail]: email });
        if (!emailPattern.test(email?.trim() ?? '')) {
          expect(ack?.response_action).toBe('errors');
          expect(calls).toEqual([]);
        } else {
          expect(['errors', 'update']).toContain(ack?.response_action);
        }
      }),
      runs,
    );
  });
});

describe('the team picker', () => {
  it("selects only one of the person's own teams", async () => {
    const id = await loggedIn();
    const ownTeams = (await stack.built.sessions.get({
      workspaceId: stack.fake.teamId,
      userId: id,
    }))!.session.teams.map((t) => t.identifier);
    await fc.assert(
      fc.asyncProperty(
        maybe(fc.oneof(text, fc.constantFrom(...ownTeams, stack.sim.seed.teams.globex.id))),
        async (choice) => {
          const selectedBefore = (await stack.built.sessions.get({ workspaceId: stack.fake.teamId, userId: id }))!.team
            ?.identifier;
          const { ack, calls } = await submit(TEAM_PICKER_VIEW, id, { [TEAM_CHOICE]: choice });
          const selected = (await stack.built.sessions.get({ workspaceId: stack.fake.teamId, userId: id }))!.team
            ?.identifier;
          if (choice === undefined || !ownTeams.includes(choice)) {
            expect(ack?.response_action).toBe('errors');
            expect(calls).toEqual([]);
            expect(selected).toBe(selectedBefore);
          } else {
            // Choosing changes nothing on the platform; App Home is redrawn from reads.
            expect(ack?.response_action).toBe('update');
            expect(calls.filter((call) => call.method !== 'GET')).toEqual([]);
            expect(selected).toBe(choice);
          }
        },
      ),
      runs,
    );
  });
});

describe('the attack builder', () => {
  const types = ['cpu', 'memory', 'latency', 'shutdown', 'dns'];
  const builderInputs = fc.oneof(fc.constantFrom(...types), text).chain((type) => {
    const metadata = builtInCatalogue.find((t) => t.name === type);
    const args = Object.fromEntries(
      (metadata?.args ?? []).filter((a) => a.name !== 'length').map((a) => [attackArgId(type, a.name), maybe(text)]),
    );
    return fc.record({
      [ATTACK_TYPE_SELECT]: fc.constant(type),
      [ATTACK_LENGTH]: maybe(text),
      [ATTACK_TARGET_KIND]: maybe(fc.oneof(fc.constantFrom('all', 'tags', 'hosts', 'containers', 'labels'), text)),
      [ATTACK_TARGET_VALUES]: maybe(fc.oneof(fc.constantFrom('role=web', 'platform-web-1', 'app=checkout'), text)),
      [ATTACK_TARGET_COUNT]: maybe(text),
      [ATTACK_TEAM]: maybe(
        fc.oneof(fc.constantFrom(stack.sim.seed.teams.platform.id, stack.sim.seed.teams.globex.id), text),
      ),
      ...args,
    });
  });
  const number = (value: string | undefined) =>
    value !== undefined && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;

  it('starts nothing, and answers field errors with no platform call for what is not valid', async () => {
    const id = await loggedIn();
    await fc.assert(
      fc.asyncProperty(builderInputs, async (inputs: Record<string, string | undefined>) => {
        const { ack, calls } = await submit(ATTACK_BUILDER_VIEW, id, inputs, JSON.stringify({ channel }));
        expect(['errors', 'clear']).toContain(ack?.response_action);
        expect(calls.filter((call) => call.method !== 'GET')).toEqual([]);
        if (ack?.response_action === 'errors') expect(calls.filter((call) => call.path !== '/metadata')).toEqual([]);
        // Ranges, restated here from the rules: out of range is always a field error.
        const type = inputs[ATTACK_TYPE_SELECT];
        const percent = number(inputs[attackArgId(type!, 'percent')]);
        const cores = number(inputs[attackArgId(type!, 'cores')]);
        const count = number(inputs[ATTACK_TARGET_COUNT]);
        if (type === 'cpu' && percent !== undefined && (percent < 1 || percent > 100))
          expect(ack?.errors?.[attackArgId('cpu', 'percent')]).toContain('from 1 to 100');
        if (type === 'cpu' && cores !== undefined && cores < 1)
          expect(ack?.errors?.[attackArgId('cpu', 'cores')]).toContain('at least 1');
        if (count !== undefined && count > 1000) expect(ack?.response_action).toBe('errors');
      }),
      runs,
    );
  });
});

describe('the note form', () => {
  it('adds a note only when there is one to add, within its length', async () => {
    const id = await loggedIn();
    const [guid] = stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 1);
    const ref = attackRefValue({ guid: guid!, teamId: stack.sim.seed.teams.platform.id, kind: 'attack' });
    await fc.assert(
      fc.asyncProperty(maybe(fc.oneof(text, fc.string({ minLength: 990, maxLength: 1100 }))), async (note) => {
        const { ack, calls } = await submit(NOTE_VIEW, id, { [NOTE_TEXT]: note }, ref);
        const trimmed = note?.trim() ?? '';
        if (trimmed === '' || trimmed.length > 1000) {
          expect(ack?.response_action).toBe('errors');
          expect(calls).toEqual([]);
        } else {
          expect(ack).toBeUndefined();
          expect(calls.map((call) => call.method)).toContain('PUT');
        }
        // Shrinking a 1,000-character note through the platform takes long; the first failure is clear enough.
      }),
      { ...runs, endOnFailure: true },
    );
  });
});

describe('the ticket forms', () => {
  /** A ticket draft of the person's, opened the way a person opens it: `/chaos ticket <id>`. */
  async function openDraft(id: string): Promise<{ draft: string; guid: string }> {
    const [guid] = stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 1);
    const person = stack.person(id);
    await person.command(`ticket ${guid}`, { channel });
    const modal = await stack.fake.waitFor(
      () => person.modal()?.callbackId === TICKET_PROJECT_VIEW && person.modal(),
      'the ticket project step',
    );
    return { draft: modal.privateMetadata, guid: guid! };
  }

  it('asks the tracker for fields only once a project and issue type are given', async () => {
    const id = await loggedIn();
    const { draft } = await openDraft(id);
    const { projectId, issueTypeId } = stack.sim.seed.tracker;
    await fc.assert(
      fc.asyncProperty(
        maybe(fc.oneof(text, fc.constant(projectId))),
        maybe(fc.oneof(text, fc.constant(issueTypeId))),
        async (project, issueType) => {
          const { ack, calls } = await submit(
            TICKET_PROJECT_VIEW,
            id,
            { [TICKET_PROJECT_ID]: project, [TICKET_ISSUE_TYPE_ID]: issueType },
            draft,
          );
          if (!project?.trim() || !issueType?.trim()) {
            expect(ack?.response_action).toBe('errors');
            expect(calls).toEqual([]);
          } else {
            expect(ack?.response_action).toBe('update');
          }
        },
      ),
      runs,
    );
  });

  it('files a ticket only from a complete form, and only once', async () => {
    const id = await loggedIn();
    const { draft, guid } = await openDraft(id);
    const { projectId, issueTypeId } = stack.sim.seed.tracker;
    const { ack: form } = await submit(
      TICKET_PROJECT_VIEW,
      id,
      { [TICKET_PROJECT_ID]: projectId, [TICKET_ISSUE_TYPE_ID]: issueTypeId },
      draft,
    );
    expect(form?.response_action).toBe('update');
    const meta = (await stack.built.store.get<{ meta: IssueMeta }>(`ticket-draft:${draft}`))!.meta;
    const fields = Object.fromEntries(
      ticketInputFields(meta).map((field) => [
        ticketFieldId(field.key),
        maybe(
          fc.oneof(
            text,
            fc.constantFrom(...field.allowedValues.map((allowed) => allowed.id), '2026-02-30', '2026-03-01', '3', 'x'),
          ),
        ),
      ]),
    );
    const inputs = fc.record({
      [TICKET_SUMMARY]: maybe(fc.oneof(text, fc.string({ minLength: 250, maxLength: 300 }))),
      [TICKET_DESCRIPTION]: maybe(text),
      [TICKET_LABELS]: maybe(text),
      ...fields,
    });
    await fc.assert(
      fc.asyncProperty(inputs, async (values) => {
        const { ack, calls } = await submit(TICKET_VIEW, id, values, draft);
        // A summary left out of the submission is the prefilled one; one typed empty is an error.
        if (values[TICKET_SUMMARY] !== undefined && !values[TICKET_SUMMARY].trim())
          expect(ack?.errors?.[TICKET_SUMMARY]).toBeDefined();
        if (ack?.response_action === 'errors')
          expect(calls.filter((call) => call.path === '/tracker/issues')).toEqual([]);
        expect(stack.sim.state.trackerIssues.filter((issue) => issue.entity.id === guid).length).toBeLessThanOrEqual(1);
      }),
      runs,
    );
  });
});

describe('every modal of the bot', () => {
  it.each(Object.keys(listeners.views))(
    '%s answers arbitrary fields and metadata once, without a crash',
    async (callbackId) => {
      const id = await loggedIn();
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(
            fc.oneof(
              fc.string({ maxLength: 20 }),
              fc.constantFrom(
                ...Object.values(loginFields),
                TEAM_CHOICE,
                NOTE_TEXT,
                ATTACK_TYPE_SELECT,
                TICKET_SUMMARY,
              ),
            ),
            text,
            { maxKeys: 6 },
          ),
          fc.oneof(text, fc.json()),
          async (inputs, privateMetadata) => {
            await submit(callbackId, id, inputs, privateMetadata);
          },
        ),
        { numRuns: 25 },
      );
    },
  );
});
