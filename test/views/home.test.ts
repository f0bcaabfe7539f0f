import { viewViolations } from '@faultline/fake-slack/limits';
import type { ActionsBlock, AnyBlock, Button, HomeView, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { HALT_ATTACK, parseAttackRef } from '../../src/views/attacks/attackCard.ts';
import type { ListedAttack } from '../../src/views/attacks/attackList.ts';
import { HALT_ALL_CONFIRMED } from '../../src/views/attacks/halt.ts';
import { HOME_NEW_ATTACK, HOME_SWITCH_TEAM, homeView, type HomeState } from '../../src/views/home.ts';
import { LOGIN_BUTTON } from '../../src/views/login/login.ts';

const attack = (index: number, active = true): ListedAttack => ({
  guid: `guid-${index}`,
  kind: index % 2 ? 'kubernetes' : 'attack',
  type: 'cpu',
  args: ['-l', '60'],
  stage: active ? 'Running' : 'Successful',
  lifecycle: active ? 'Active' : 'Complete',
  clients: 2,
  createdBy: 'alice@example.com',
  startedAt: '2026-11-20T18:13:49.593Z',
  active,
});

const login: NonNullable<HomeState['login']> = {
  identifier: 'alice@example.com',
  company: 'Demo Co',
  teamId: 'team-1',
  teamName: 'Payments',
  teams: [
    { id: 'team-1', name: 'Payments' },
    { id: 'team-2', name: 'Search' },
  ],
};

const gameDay = { channel: 'C9', title: 'Q4 <resilience>', facilitator: 'U7', startedAt: '2026-11-20T17:00:00.000Z' };

const home = (state: Partial<HomeState> = {}): HomeView =>
  homeView({ login, active: [], recent: [], gameDays: [], command: '/chaos', ...state });

const sections = (view: HomeView) => view.blocks.filter((block): block is SectionBlock => block.type === 'section');
const buttons = (view: HomeView): Button[] => [
  ...view.blocks
    .filter((block): block is ActionsBlock => block.type === 'actions')
    .flatMap((block) => block.elements as Button[]),
  ...sections(view)
    .filter((block) => block.accessory?.type === 'button')
    .map((block) => block.accessory as Button),
];
const actionIds = (view: HomeView) => buttons(view).map((button) => button.action_id);
const texts = (blocks: AnyBlock[]) => JSON.stringify(blocks);

function expectValidHome(view: HomeView): void {
  expect(view.type).toBe('home');
  expect(viewViolations(view)).toEqual([]);
  const blockIds = view.blocks.map((block) => block.block_id).filter((id) => id !== undefined);
  expect(new Set(blockIds).size).toBe(blockIds.length);
}

describe('App Home', () => {
  it('logged out: an intro and a Log in button, and nothing of attacks', () => {
    const view = home({ login: undefined, active: [attack(1)] });
    expectValidHome(view);
    expect(actionIds(view)).toEqual([LOGIN_BUTTON]);
    expect(texts(view.blocks)).not.toContain('guid-1');
  });

  it("logged out: still lists the game days of the person's channels", () => {
    const view = home({ login: undefined, gameDays: [gameDay] });
    expectValidHome(view);
    expect(texts(view.blocks)).toContain('<#C9>');
  });

  it('logged in: identity, team, New attack and Switch team', () => {
    const view = home();
    expectValidHome(view);
    const intro = sections(view)[0];
    expect(intro?.text?.text).toBe('Logged in as *alice@example.com* at *Demo Co*.\nTeam: *Payments*');
    expect(actionIds(view)).toEqual([HOME_NEW_ATTACK, HOME_SWITCH_TEAM]);
    expect(texts(view.blocks)).toContain('No active attacks in team *Payments*.');
  });

  it('names the team by its id when its name is unknown', () => {
    const view = home({ login: { ...login, teamName: undefined }, active: [attack(2)] });
    expect(sections(view)[0]?.text?.text).toContain('Team: *team-1*');
    expect(buttons(view).some((button) => button.action_id === HALT_ATTACK)).toBe(true);
  });

  it('offers no switch with one team, and asks to choose a team when none is selected', () => {
    expect(actionIds(home({ login: { ...login, teams: [login.teams[0]!] } }))).toEqual([HOME_NEW_ATTACK]);
    const unselected = home({ login: { ...login, teamId: undefined, teamName: undefined }, active: [attack(1)] });
    expectValidHome(unselected);
    expect(buttons(unselected).map((button) => [button.action_id, button.text.text])).toEqual([
      [HOME_SWITCH_TEAM, 'Choose a team'],
    ]);
    expect(texts(unselected.blocks)).toContain('No team selected yet.');
    expect(texts(unselected.blocks)).not.toContain('guid-1');
  });

  it('lists active attacks with a Halt button each, Halt all, and recent attacks without buttons', () => {
    const view = home({ active: [attack(1), attack(2)], recent: [attack(3, false)] });
    expectValidHome(view);
    const halts = buttons(view).filter((button) => button.action_id === HALT_ATTACK);
    expect(halts.map((button) => parseAttackRef(button.value))).toEqual([
      { guid: 'guid-1', teamId: 'team-1', kind: 'kubernetes' },
      { guid: 'guid-2', teamId: 'team-1', kind: 'attack' },
    ]);
    const haltAll = buttons(view).find((button) => button.action_id === HALT_ALL_CONFIRMED);
    expect(haltAll).toMatchObject({
      value: 'attacks',
      style: 'danger',
      confirm: { title: { text: 'Halt all attacks?' } },
    });
    const recent = sections(view).filter((block) => (block.text?.text ?? '').includes('guid-3'));
    expect(recent).toHaveLength(1);
    expect(recent[0]?.accessory).toBeUndefined();
  });

  it('has no Halt all without active attacks', () => {
    expect(actionIds(home({ recent: [attack(3, false)] }))).not.toContain(HALT_ALL_CONFIRMED);
  });

  it('lists the game days with channel, facilitator, start and a link when there is one', () => {
    const view = home({
      gameDays: [
        { ...gameDay, permalink: 'https://slack.example/archives/C9/p1' },
        { ...gameDay, channel: 'C10', title: 'Chaos hour' },
      ],
    });
    expectValidHome(view);
    const lines = sections(view)
      .map((block) => block.text?.text ?? '')
      .filter((text) => text.startsWith(':dart:'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^:dart: \*Q4 &lt;resilience&gt;\* in <#C9> · <https:\/\/slack\.example\/archives\/C9\/p1\|Open>\nFacilitated by <@U7> · started <!date\^\d+\^/,
    );
    expect(lines[1]).toContain('*Chaos hour* in <#C10>\n');
  });

  it('stays within 100 blocks with many attacks and game days, counting what it leaves out', () => {
    const many = Array.from({ length: 200 }, (_, index) => attack(index));
    const view = home({
      active: many,
      recent: Array.from({ length: 50 }, (_, index) => attack(1000 + index, false)),
      gameDays: Array.from({ length: 30 }, (_, index) => ({ ...gameDay, channel: `C${index}` })),
    });
    expectValidHome(view);
    expect(buttons(view).filter((button) => button.action_id === HALT_ATTACK)).toHaveLength(15);
    expect(sections(view).filter((block) => (block.text?.text ?? '').includes('guid-100'))).toHaveLength(10);
    expect(texts(view.blocks)).toContain('and 185 more: `/chaos list active` lists them all.');
    expect(texts(view.blocks)).toContain('and 20 more game days.');
  });
});
