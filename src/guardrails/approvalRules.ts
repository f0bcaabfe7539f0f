/**
 * When a start needs a second person (`APPROVAL_RULES`): `always`, `all-targets` (no target flag:
 * every client of the team), `length>SECONDS`, `type=<attack type>`, `team=<name or id>`,
 * `channel=<id>`, separated by commas. Any one rule that matches is enough.
 */
export type ApprovalRule =
  | { kind: 'always' }
  | { kind: 'all-targets' }
  | { kind: 'length'; seconds: number }
  | { kind: 'type'; type: string }
  | { kind: 'team'; team: string }
  | { kind: 'channel'; channel: string };

/** The rules, or the first entry that is not one (for the configuration error). */
export function parseApprovalRules(text: string): { rules: ApprovalRule[] } | { wrong: string } {
  const rules: ApprovalRule[] = [];
  for (const raw of text
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean)) {
    const rule = parseRule(raw);
    if (!rule) return { wrong: raw };
    rules.push(rule);
  }
  return { rules };
}

function parseRule(raw: string): ApprovalRule | undefined {
  if (raw === 'always') return { kind: 'always' };
  if (raw === 'all-targets') return { kind: 'all-targets' };
  let match = /^length\s*>\s*(\d{1,7})$/.exec(raw);
  if (match) return { kind: 'length', seconds: Number(match[1]) };
  match = /^(type|team|channel)\s*=\s*(\S(?:.*\S)?)$/.exec(raw);
  if (!match) return undefined;
  const [, key, value] = match as unknown as [string, 'type' | 'team' | 'channel', string];
  if (key === 'channel') return /^[CGD][A-Z0-9]{2,}$/.test(value) ? { kind: 'channel', channel: value } : undefined;
  return key === 'type' ? { kind: 'type', type: value } : { kind: 'team', team: value };
}

export interface ApprovalSubject {
  type: string;
  /** Undefined when the attack runs until it completes. */
  lengthSeconds: number | undefined;
  everyClient: boolean;
  team: { id: string; name: string };
  channel: string;
}

/** The first rule a start matches, if any. */
export function approvalRuleFor(rules: readonly ApprovalRule[], s: ApprovalSubject): ApprovalRule | undefined {
  return rules.find((rule) => {
    switch (rule.kind) {
      case 'always':
        return true;
      case 'all-targets':
        return s.everyClient;
      case 'length':
        return s.lengthSeconds === undefined || s.lengthSeconds > rule.seconds;
      case 'type':
        return s.type.toLowerCase() === rule.type.toLowerCase();
      case 'team':
        return [s.team.id, s.team.name].some((t) => t.toLowerCase() === rule.team.toLowerCase());
      case 'channel':
        return s.channel === rule.channel;
    }
  });
}
