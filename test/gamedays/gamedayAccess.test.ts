/** Who may end a game day or change its guards, read from the person's own session. */
import { describe, expect, it } from 'vitest';
import { NoTeamSelectedError, NotLoggedInError } from '../../src/errors.ts';
import { GameDayService, gameDayAccess } from '../../src/gamedays/service.ts';
import type { Actor, Login } from '../../src/store/sessions.ts';

const actor: Actor = { workspaceId: 'W1', userId: 'U2', userName: 'bo', channelId: 'C1' };
const record = { facilitator: 'U1', teamId: 'T1' };

/** The sessions part of the deps, holding one login (or none, or one that just expired). */
function sessionsWith(teams: { identifier: string; privileges: string[] }[] | 'none' | 'expired') {
  const login = Array.isArray(teams) ? ({ session: { teams }, team: undefined } as unknown as Login) : undefined;
  return { sessions: { lookup: async () => ({ login, expired: teams === 'expired' }) } } as never;
}

describe('a game day', () => {
  it('is ended by its facilitator without a session, or by someone with HALT_WRITE on its team only', async () => {
    const facilitator = { ...actor, userId: 'U1' };
    expect((await gameDayAccess(sessionsWith('none'), facilitator, record, 'end')).may).toBe(true);
    const halter = sessionsWith([{ identifier: 'T1', privileges: ['HALT_WRITE'] }]);
    expect((await gameDayAccess(halter, actor, record, 'end')).may).toBe(true);
    const runner = sessionsWith([{ identifier: 'T1', privileges: ['EXPERIMENTS_RUN'] }]);
    expect(await gameDayAccess(runner, actor, record, 'end')).toEqual({ may: false, loggedIn: true, expired: false });
    const elsewhere = sessionsWith([{ identifier: 'T2', privileges: ['HALT_WRITE'] }]);
    expect((await gameDayAccess(elsewhere, actor, record, 'end')).may).toBe(false);
    // A game day kept before its team was: the privilege on any of the person's teams.
    expect((await gameDayAccess(elsewhere, actor, { facilitator: 'U1' }, 'end')).may).toBe(true);
  });

  it('has its guards added by EXPERIMENTS_RUN or HALT_WRITE on its team, and removed also by its facilitator', async () => {
    const facilitator = { ...actor, userId: 'U1' };
    expect((await gameDayAccess(sessionsWith('none'), facilitator, record, 'add guards')).may).toBe(false);
    expect((await gameDayAccess(sessionsWith('none'), facilitator, record, 'remove guards')).may).toBe(true);
    const runner = sessionsWith([{ identifier: 'T1', privileges: ['EXPERIMENTS_RUN'] }]);
    expect((await gameDayAccess(runner, actor, record, 'add guards')).may).toBe(true);
    expect((await gameDayAccess(runner, actor, record, 'remove guards')).may).toBe(true);
    const reader = sessionsWith([{ identifier: 'T1', privileges: ['EXPERIMENTS_READ'] }]);
    expect((await gameDayAccess(reader, actor, record, 'add guards')).may).toBe(false);
  });

  it('says when the refused person is not logged in, or their session just expired', async () => {
    expect(await gameDayAccess(sessionsWith('none'), actor, record, 'add guards')).toEqual({
      may: false,
      loggedIn: false,
      expired: false,
    });
    expect((await gameDayAccess(sessionsWith('expired'), actor, record, 'end')).expired).toBe(true);
  });
});

describe('who runs a game day', () => {
  /** The game-day service over one login whose selected team is `team` (or none logged in). */
  function serviceWith(team: { identifier: string; privileges: string[] } | 'none' | undefined) {
    const login = team === 'none' ? undefined : ({ session: { teams: team ? [team] : [] }, team } as unknown as Login);
    return new GameDayService({ sessions: { lookup: async () => ({ login, expired: false }) } } as never);
  }

  it('is someone who may run attacks in their selected team', async () => {
    const runner = { identifier: 'T1', privileges: ['EXPERIMENTS_RUN'] };
    expect(await serviceWith(runner).facilitatorTeam(actor)).toEqual({ team: runner, may: true });
    const reader = { identifier: 'T1', privileges: ['EXPERIMENTS_READ', 'HALT_WRITE'] };
    expect(await serviceWith(reader).facilitatorTeam(actor)).toEqual({ team: reader, may: false });
    await expect(serviceWith(undefined).facilitatorTeam(actor)).rejects.toBeInstanceOf(NoTeamSelectedError);
    await expect(serviceWith('none').facilitatorTeam(actor)).rejects.toBeInstanceOf(NotLoggedInError);
  });
});
