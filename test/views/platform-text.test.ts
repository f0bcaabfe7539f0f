import { describe, expect, it } from 'vitest';
import { externalLink, isLinkableUrl } from '../../src/views/blocks.ts';
import { gameDayTimelineLine } from '../../src/views/gamedays/gameday.ts';
import { attackSchema } from '../../src/client/index.ts';
import { attackDetailsMessage } from '../../src/views/attacks/attackDetails.ts';
import { attackListMessage, listed } from '../../src/views/attacks/attackList.ts';
import { linkedElsewhereMessage } from '../../src/views/login/loginWords.ts';

/** Every mrkdwn text of a message: what Slack would parse for mentions and links. */
function mrkdwnTexts(message: { text: string; blocks?: unknown[] | undefined }): string[] {
  const texts = [message.text];
  JSON.stringify(message.blocks, (_key, value: unknown) => {
    if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'mrkdwn')
      texts.push(String((value as { text: unknown }).text));
    return value;
  });
  return texts;
}

describe('links to addresses from outside Faultline', () => {
  it.each([
    'https://tracker.example/browse/OPS-1',
    'http://tracker.internal:8080/browse/OPS-1',
    'https://tracker.example/browse/OPS-1?a=1&b=2#top',
  ])('links %s', (url) => {
    expect(isLinkableUrl(url)).toBe(true);
    expect(externalLink(url, 'OPS-1')).toBe(`<${url}|OPS-1>`);
  });

  it.each([
    undefined,
    '',
    'https://tracker.example/x|<!channel>',
    'https://tracker.example/<@U0BOSS>',
    'https://tracker.example/a>b',
    'https://tracker.example/a b',
    'https://tracker.example/a\nb',
    'javascript:alert(1)',
    'mailto:ops@example.com',
    'ftp://tracker.example/OPS-1',
    '/browse/OPS-1',
    'tracker.example/browse/OPS-1',
  ])('shows the label alone, in bold, for %j', (url) => {
    expect(isLinkableUrl(url)).toBe(false);
    expect(externalLink(url, 'OPS-1')).toBe('*OPS-1*');
  });

  it('escapes the label', () => {
    expect(externalLink('https://tracker.example/1', '<!here> & co')).toBe(
      '<https://tracker.example/1|&lt;!here&gt; &amp; co>',
    );
    expect(externalLink('javascript:x', '<!here>')).toBe('*&lt;!here&gt;*');
  });

  it('keeps a hostile tracker url out of the game-day timeline', () => {
    const line = gameDayTimelineLine({
      kind: 'ticket',
      ticket: { key: 'OPS-7', url: 'https://t.example/x|<!channel>', by: 'U5', at: '' },
    });
    expect(line).toContain('*OPS-7*');
    expect(line).not.toContain('<!channel>');
  });
});

describe('platform text in mrkdwn', () => {
  const hostile = attackSchema.parse({
    guid: 'g1`<!channel>|x',
    stage: 'Running<!here>',
    stage_lifecycle: 'Active',
    target_type: '<!everyone>',
    args: ['-l', '60'],
    targets: [],
    infra_command: { type: 'cpu' },
    create_user: 'a@b.example',
  });

  it('escapes the stage, the target type and the id in details, and links the platform page only for a path-safe id', () => {
    const message = attackDetailsMessage(hostile, [], { id: 'team-1', name: 'Payments' }, 'https://app.example');
    for (const text of mrkdwnTexts(message)) {
      expect(text).not.toMatch(/<!(channel|here|everyone)>/);
      expect(text).not.toContain('https://app.example/attacks/');
    }
    expect(mrkdwnTexts(message).join('\n')).toContain('&lt;!channel&gt;');

    const fine = attackDetailsMessage(
      { ...hostile, guid: 'a1b2c3d4-0000-4000-8000-000000000001', stage: 'Running', target_type: 'Host' },
      [],
      { id: 'team-1', name: 'Payments' },
      'https://app.example',
    );
    expect(mrkdwnTexts(fine).join('\n')).toContain(
      '<https://app.example/attacks/a1b2c3d4-0000-4000-8000-000000000001|Open in the platform>',
    );
  });

  it('escapes the stage and the id in lists', () => {
    const message = attackListMessage({
      which: 'active',
      teamId: 'team-1',
      teamName: 'Payments',
      attacks: [listed(hostile)],
      pageNumber: 1,
    });
    for (const text of mrkdwnTexts(message)) expect(text).not.toMatch(/<!(channel|here|everyone)>/);
  });

  it("escapes the team's name in a list's fallback text", () => {
    const message = attackListMessage({
      which: 'active',
      teamId: 'team-1',
      teamName: 'R&D <!here>',
      attacks: [listed(hostile)],
      pageNumber: 1,
    });
    expect(message.text).toBe('Active ad-hoc attacks · R&amp;D &lt;!here&gt;: 1 on page 1');
  });
});

describe('names from Slack in mrkdwn', () => {
  it("escapes the other account's name, handle and workspace in the linked-elsewhere message's fallback text", () => {
    const message = linkedElsewhereMessage({
      platformUser: 'owner@example.com',
      linkedTo: { workspaceId: 'T1', userId: 'U2', name: 'Mallory <!channel>', handle: 'm&m' },
      workspace: 'Acme <https://evil.example|login>',
    });
    expect(message.text).toBe(
      'Your platform login owner@example.com was just linked to the Slack account of Mallory &lt;!channel&gt; (@m&amp;m) in Acme &lt;https://evil.example|login&gt;. Faultline acts for them with your platform account until that session ends.',
    );
    for (const text of mrkdwnTexts(message)) expect(text).not.toMatch(/<!channel>|<https:/);
  });
});
