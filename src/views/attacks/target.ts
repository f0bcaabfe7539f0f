import type { Attack } from '../../client/index.ts';
import type { AttackTarget } from '../../attacks/request.ts';
import { agree, plural } from '../blocks.ts';

const pairs = (map: Record<string, string>) =>
  Object.entries(map)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

/** The target in words, for the preview and the card; "every active client" is said outright. */
export function describeTarget(target: AttackTarget, teamName: string): string {
  switch (target.kind) {
    case 'all':
      return `every active client of team ${teamName}`;
    case 'hosts':
      return `${agree(target.ids.length, 'host')} ${target.ids.join(', ')}`;
    case 'containers':
      return `${agree(target.ids.length, 'container')} ${target.ids.join(', ')}`;
    case 'tags':
      return `${target.count !== undefined ? plural(target.count, 'random host') : 'all hosts'} tagged ${pairs(target.tags)}`;
    case 'labels':
      return `${target.count !== undefined ? plural(target.count, 'random container') : 'all containers'} labelled ${pairs(target.labels)}`;
    case 'service': {
      const share =
        target.percent !== undefined && target.percent < 100
          ? `a random ${target.percent}% of the targets of service`
          : 'every target of service';
      return `${share} ${target.serviceId}${target.includeNewTargets ? ', and targets that join it while the attack runs' : ''}`;
    }
    case 'kubernetes': {
      const objects = target.objects.map((o) => `${o.kind} ${o.name} in ${o.clusterId}/${o.namespace}`).join(', ');
      const many = target.objects.length > 1;
      const objectsWords = `${many ? `${target.objects.length} Kubernetes objects` : 'Kubernetes object'} ${objects}`;
      if (target.count !== undefined) return `${plural(target.count, 'random object')} of ${objectsWords}`;
      if (target.percent !== undefined) return `a random ${target.percent}% of ${objectsWords}`;
      return many ? `all ${objectsWords}` : objectsWords;
    }
  }
}

const platformPairs = (map: unknown) =>
  map && typeof map === 'object'
    ? Object.entries(map as Record<string, unknown>)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(', ')
    : '';

/** The target of an attack created elsewhere, in words, from the platform's record of it. */
export function platformTargetWords(
  attack: Pick<Attack, 'infra_target' | 'targets' | 'target_type'>,
  teamName: string,
): string {
  const target = attack.infra_target ?? {};
  const ids = (group: unknown) => (group as { ids?: unknown } | undefined)?.ids;
  const hosts = ids(target['hosts']);
  const containers = target['containers'] as { ids?: unknown; labels?: unknown } | undefined;
  const exact = typeof target['exact'] === 'number' ? target['exact'] : undefined;
  if (Array.isArray(hosts) && hosts.length) return `${agree(hosts.length, 'host')} ${hosts.join(', ')}`;
  if (Array.isArray(containers?.ids) && containers.ids.length)
    return `${agree(containers.ids.length, 'container')} ${containers.ids.join(', ')}`;
  if (containers?.labels && platformPairs(containers.labels))
    return `${exact !== undefined ? plural(exact, 'random container') : 'all containers'} labelled ${platformPairs(containers.labels)}`;
  if (platformPairs(target['tags']))
    return `${exact !== undefined ? plural(exact, 'random host') : 'all hosts'} tagged ${platformPairs(target['tags'])}`;
  if (attack.targets.length)
    return `${agree(attack.targets.length, attack.target_type === 'Container' ? 'container' : 'host')} ${attack.targets.slice(0, 10).join(', ')}${attack.targets.length > 10 ? ', …' : ''}`;
  return `every active client of team ${teamName}`;
}
