/** `APPROVAL_RULES`: which entries are rules, and which rule a start matches. */
import { describe, expect, it } from 'vitest';
import { type ApprovalSubject, approvalRuleFor, parseApprovalRules } from '../../src/guardrails/approvalRequests.ts';

const rules = (text: string) => {
  const parsed = parseApprovalRules(text);
  if (!('rules' in parsed)) throw new Error(`not rules: ${parsed.wrong}`);
  return parsed.rules;
};

const start: ApprovalSubject = {
  type: 'cpu',
  lengthSeconds: 60,
  everyClient: false,
  team: { id: 'team-1', name: 'Platform' },
  channel: 'C0ATTACKS',
};

describe('approval rules', () => {
  it('reads every kind of rule, separated by commas, spaces and empty entries aside', () => {
    expect(rules(' always, all-targets,length > 300,,type=Memory, team = Platform Ops ,channel=C0ATTACKS ')).toEqual([
      { kind: 'always' },
      { kind: 'all-targets' },
      { kind: 'length', seconds: 300 },
      { kind: 'type', type: 'Memory' },
      { kind: 'team', team: 'Platform Ops' },
      { kind: 'channel', channel: 'C0ATTACKS' },
    ]);
    expect(rules('')).toEqual([]);
  });

  it('names the first entry that is not a rule', () => {
    for (const [text, wrong] of [
      ['always, sometimes', 'sometimes'],
      ['length>5m', 'length>5m'],
      ['length<300', 'length<300'],
      ['channel=general', 'channel=general'],
      ['type=', 'type='],
      ['owner=ana, always', 'owner=ana'],
    ] as [string, string][])
      expect(parseApprovalRules(text)).toEqual({ wrong });
  });

  it('asks for a second person when any one rule matches, and gives the first that does', () => {
    expect(approvalRuleFor(rules('always'), start)).toEqual({ kind: 'always' });
    expect(approvalRuleFor(rules('length>60, type=CPU'), start)).toEqual({ kind: 'type', type: 'CPU' });
    expect(approvalRuleFor(rules('team=platform, team=team-1'), start)).toEqual({ kind: 'team', team: 'platform' });
    expect(approvalRuleFor(rules('team=TEAM-1'), start)).toEqual({ kind: 'team', team: 'TEAM-1' });
    expect(approvalRuleFor(rules('channel=C0ATTACKS'), start)).toEqual({ kind: 'channel', channel: 'C0ATTACKS' });
    expect(approvalRuleFor([], start)).toBeUndefined();
  });

  it('lets a start through that no rule matches', () => {
    for (const text of ['length>60', 'type=memory', 'team=Payments', 'channel=C0OTHER', 'all-targets'])
      expect(approvalRuleFor(rules(text), start)).toBeUndefined();
  });

  it('holds back an attack longer than the limit, or with no end, and one on every client', () => {
    const length = rules('length>60');
    expect(approvalRuleFor(length, { ...start, lengthSeconds: 61 })).toEqual({ kind: 'length', seconds: 60 });
    expect(approvalRuleFor(length, { ...start, lengthSeconds: undefined })).toEqual({ kind: 'length', seconds: 60 });
    expect(approvalRuleFor(rules('all-targets'), { ...start, everyClient: true })).toEqual({ kind: 'all-targets' });
  });
});
