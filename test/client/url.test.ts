import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { createPlatformClient, InsecureUrlError } from '../../src/client/index.ts';

describe('base URL', () => {
  const dispatcher = new MockAgent();

  it.each([
    'http://platform.example.com/v1',
    'http://10.0.0.5/v1',
    'http://128.0.0.1/v1',
    'http://localhost.example.com/v1',
    'ftp://platform.example.com/v1',
  ])('refuses %s', (baseUrl) => {
    expect(() => createPlatformClient({ baseUrl, dispatcher })).toThrow(InsecureUrlError);
  });

  it.each([
    'https://platform.example.com/v1',
    'http://127.0.0.1:8080/v1',
    'http://127.10.0.3/v1',
    'http://localhost:3000/v1',
    'http://[::1]:3000/v1',
  ])('accepts %s', (baseUrl) => {
    expect(() => createPlatformClient({ baseUrl, dispatcher })).not.toThrow();
  });

  it('refuses a URL carrying credentials without echoing them', () => {
    expect(() => createPlatformClient({ baseUrl: 'https://me:hunter2@platform.example.com/v1', dispatcher })).toThrow(
      /must not contain credentials/,
    );
  });

  it('refuses a malformed URL', () => {
    expect(() => createPlatformClient({ baseUrl: 'platform/v1', dispatcher })).toThrow(TypeError);
  });
});

describe('a scoped platform', () => {
  it('has every resource, each made once when first read', () => {
    const scoped = createPlatformClient({ baseUrl: 'https://platform.example.com/v1', dispatcher: new MockAgent() }).as(
      {
        header: 'Bearer x',
        teamId: 'T1',
      },
    );
    expect(Object.keys(scoped).sort()).toEqual([
      'attacks',
      'clients',
      'kubernetes',
      'metadata',
      'monitoring',
      'tracker',
    ]);
    expect(scoped.attacks).toBe(scoped.attacks);
    expect(typeof scoped.tracker.createIssue).toBe('function');
    expect(typeof scoped.clients.listActive).toBe('function');
  });
});
