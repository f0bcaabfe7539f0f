import type { InfraAttackArg, InfraAttackMetadata } from '../client/catalogue.ts';

/** The attack type named `word`, ignoring case as people type it. */
export function findAttackType(
  catalogue: readonly InfraAttackMetadata[],
  word: string,
): InfraAttackMetadata | undefined {
  const wanted = word.toLowerCase();
  return catalogue.find((metadata) => metadata.name.toLowerCase() === wanted);
}

const typeGroups = ['Resource', 'State', 'Network'] as const;

/** Attack types by group, the three known groups first, for lists and the builder's select. */
export function groupedTypes(
  catalogue: readonly InfraAttackMetadata[],
): { group: string; types: InfraAttackMetadata[] }[] {
  const groups = new Map<string, InfraAttackMetadata[]>(typeGroups.map((group) => [group, []]));
  for (const metadata of catalogue) {
    const group = typeGroups.find((known) => known === metadata.type) ?? 'Other';
    groups.set(group, [...(groups.get(group) ?? []), metadata]);
  }
  return [...groups].filter(([, types]) => types.length > 0).map(([group, types]) => ({ group, types }));
}

/** The flag the bot writes for an argument: the short one when there is one, as people type it. */
export function flagOf(arg: InfraAttackArg): string {
  return arg.short ? `-${arg.short}` : `--${arg.long ?? arg.name}`;
}

/** Every spelling of an argument's flag, for messages: `-l/--length`. */
export function spellings(arg: InfraAttackArg): string {
  return [arg.short ? `-${arg.short}` : undefined, `--${arg.long ?? arg.name}`].filter(Boolean).join('/');
}

/** The default length of a type in seconds, or undefined when it has none. */
export function defaultLength(metadata: InfraAttackMetadata): number | undefined {
  const length = metadata.args.find((arg) => arg.name === 'length');
  if (length?.default === null || length?.default === undefined) return undefined;
  const seconds = Number(length.default);
  return Number.isFinite(seconds) ? seconds : undefined;
}
