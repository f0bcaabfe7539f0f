import { describe, expect, it } from 'vitest';
import { externalLink, isLinkableUrl } from '../../src/views/blocks.ts';
import { gameDayTimelineLine } from '../../src/views/gameday.ts';

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
    expect(externalLink('https://tracker.example/1', '<!here> & co')).toBe('<https://tracker.example/1|&lt;!here&gt; &amp; co>');
    expect(externalLink('javascript:x', '<!here>')).toBe('*&lt;!here&gt;*');
  });

  it('keeps a hostile tracker url out of the game-day timeline', () => {
    const line = gameDayTimelineLine({ kind: 'ticket', ticket: { key: 'OPS-7', url: 'https://t.example/x|<!channel>', by: 'U5', at: '' } });
    expect(line).toContain('*OPS-7*');
    expect(line).not.toContain('<!channel>');
  });
});
