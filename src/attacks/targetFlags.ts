import type { AttackTarget } from './request.ts';

export type TargetKind = Exclude<AttackTarget['kind'], 'all'>;

/**
 * How each kind of target is typed: the flag and what its value looks like. The parser, the
 * preview's equivalent command and the usage text all read this one table.
 */
export const targetFlags = {
  hosts: { flag: '--target-hosts', value: 'a,b' },
  containers: { flag: '--target-containers', value: 'a,b' },
  tags: { flag: '--target-tags', value: 'k=v,…' },
  labels: { flag: '--target-labels', value: 'k=v,…' },
  service: { flag: '--target-service', value: 'ID' },
} as const satisfies Record<TargetKind, { flag: string; value: string }>;

/** Picks that many random clients among those matching tags or labels. */
export const targetCountFlag = '--target-count';

const kinds = Object.keys(targetFlags) as TargetKind[];

/** The target flags in usage form, one line. */
export const targetFlagsUsage = `${kinds.map((kind) => `${targetFlags[kind].flag} ${targetFlags[kind].value}`).join(' | ')}, and ${targetCountFlag} N with tags or labels`;

/** The kind of target a flag chooses, or undefined when the word is no target-kind flag. */
export function targetKindOf(flag: string): TargetKind | undefined {
  return kinds.find((kind) => targetFlags[kind].flag === flag);
}

/** The kinds whose flags were given, in the table's order. */
export function givenTargetKinds(given: (flag: string) => boolean): TargetKind[] {
  return kinds.filter((kind) => given(targetFlags[kind].flag));
}

const pairs = (map: Record<string, string>) => Object.entries(map).map(([key, value]) => `${key}=${value}`).join(',');

/** The target flags and values that choose this target, as a person would type them. */
export function targetFlagWords(target: AttackTarget): string[] {
  const count = (n: number | undefined) => (n === undefined ? [] : [targetCountFlag, String(n)]);
  switch (target.kind) {
    case 'all':
      return [];
    case 'hosts':
    case 'containers':
      return [targetFlags[target.kind].flag, target.ids.join(',')];
    case 'tags':
      return [targetFlags.tags.flag, pairs(target.tags), ...count(target.count)];
    case 'labels':
      return [targetFlags.labels.flag, pairs(target.labels), ...count(target.count)];
    case 'service':
      return [targetFlags.service.flag, target.serviceId];
  }
}
