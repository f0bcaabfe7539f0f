import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics served on /metrics. One registry per bot, so tests can run several. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'faultline_' });
  return {
    registry,
    interactions: new Counter({
      name: 'faultline_slack_interactions_total',
      help: 'Slack requests handled, by kind (command, action, view, options, event) and outcome.',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
    handlerSeconds: new Histogram({
      name: 'faultline_handler_duration_seconds',
      help: 'Time from receiving a Slack request to finishing its work, by kind.',
      labelNames: ['kind'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    attackEvents: new Counter({
      name: 'faultline_attack_events_total',
      help: 'What happened to attacks (started, refused, halted, ended, note, ticket, guard fired, frozen, approval…), by event and, for halts, by who set them going (person, guard, freeze).',
      labelNames: ['event', 'cause'] as const,
      registers: [registry],
    }),
    platformErrors: new Counter({
      name: 'faultline_platform_errors_total',
      help: 'Platform calls that failed, by error type.',
      labelNames: ['type'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
