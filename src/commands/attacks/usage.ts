import type { InfraAttackArg, InfraAttackMetadata } from '../../client/catalogue.ts';
import { flagOf, groupedTypes } from '../../attacks/catalogue.ts';
import { targetFlagsUsage } from '../../attacks/request.ts';
import { guardUsage } from '../guardrails/guardFlags.ts';

/** Usage lines, without the slash command (describeError puts it in front). */
export const attackUsage = {
  general: 'attack <type> [attack flags] [target flags] [--guard G] [--team T] [--yes]',
  targetFlags: targetFlagsUsage,
  /** `--guard`, which may be given more than once. */
  guards: `${guardUsage} (repeatable)`,
  /** `attack cpu [-l length] …` from the type's metadata, then the bot's own flags. */
  forType(metadata: InfraAttackMetadata): string {
    const own = metadata.usage?.trim() || [metadata.name, ...metadata.args.map(argUsage)].join(' ');
    return `attack ${own} [target flags] [--guard G] [--team T] [--yes]`;
  },
} as const;

function argUsage(arg: InfraAttackArg): string {
  const text = arg.type === 'Boolean' ? flagOf(arg) : `${flagOf(arg)} ${arg.name}`;
  return arg.required ? text : `[${text}]`;
}

/** Every type's name by group, in one line: `Resource: cpu, memory; Network: …`. */
export function availableTypes(catalogue: readonly InfraAttackMetadata[]): string {
  return groupedTypes(catalogue)
    .map(({ group, types }) => `${group}: ${types.map((t) => t.name).join(', ')}`)
    .join('; ');
}
