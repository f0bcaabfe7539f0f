import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { escapeHtml, formatTime, renderMrkdwn, renderPlainText } from '../src/public/mrkdwn.js';

describe('renderMrkdwn', () => {
  it('escapes HTML in message text, so text cannot inject markup', () => {
    const html = renderMrkdwn('<script>alert(1)</script> <img src=x onerror="alert(2)">');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
  });

  it('keeps Slack-escaped characters as the characters they stand for, still escaped for HTML', () => {
    expect(renderMrkdwn('a &lt;b&gt; &amp; c')).toBe('a &lt;b&gt; &amp; c');
    expect(renderMrkdwn('&lt;script&gt;')).toBe('&lt;script&gt;');
  });

  it('renders links with and without a label, opening in a new tab', () => {
    expect(renderMrkdwn('see <https://example.com/a?b=1&amp;c=2|the docs>')).toBe(
      'see <a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">the docs</a>',
    );
    expect(renderMrkdwn('<https://example.com>')).toBe(
      '<a href="https://example.com" target="_blank" rel="noopener noreferrer">https://example.com</a>',
    );
    expect(renderMrkdwn('<mailto:sre@acme.test|mail us>')).toContain('href="mailto:sre@acme.test"');
  });

  it('never makes a link of another scheme, and keeps quotes out of attributes', () => {
    expect(renderMrkdwn('<javascript:alert(1)|click>')).toBe('click');
    expect(renderMrkdwn('<data:text/html,x>')).not.toContain('href');
    const quoted = renderMrkdwn('<https://example.com/" onmouseover="alert(1)|x>');
    expect(quoted).toContain('href="https://example.com/&quot; onmouseover=&quot;alert(1)"');
    expect(quoted).not.toContain('" onmouseover="');
  });

  it('escapes a link label', () => {
    expect(renderMrkdwn('<https://example.com|<b>bold</b>>')).not.toContain('<b>');
  });

  it('renders bold, italic, strike-through and inline code', () => {
    expect(renderMrkdwn('*Team* is _Platform_ and ~old~ `cpu -l 60`')).toBe(
      '<strong>Team</strong> is <em>Platform</em> and <del>old</del> <code>cpu -l 60</code>',
    );
  });

  it('leaves underscores and stars inside words alone', () => {
    expect(renderMrkdwn('HALT_WRITE and TEAM_USER, 2*3*4')).toBe('HALT_WRITE and TEAM_USER, 2*3*4');
  });

  it('does not format inside code, and keeps code blocks whole', () => {
    expect(renderMrkdwn('`*not bold*`')).toBe('<code>*not bold*</code>');
    expect(renderMrkdwn('```\nline *1*\n<b>2</b>\n```')).toBe(
      '<pre class="code-block">line *1*\n&lt;b&gt;2&lt;/b&gt;\n</pre>',
    );
  });

  it("shows a date token in the reader's zone, as message times are, keeping the UTC fallback as its title", () => {
    // 2023-11-14 22:13:20 UTC is 07:13 the next morning in Tokyo.
    const tokyo = { locale: 'en-US', timeZone: 'Asia/Tokyo', now: new Date('2023-11-15T01:00:00Z') };
    const token = 'until <!date^1700000000^{date_short_pretty} at {time}|2023-11-14 22:13 UTC>.';
    expect(renderMrkdwn(token, {}, tokyo)).toBe(
      'until <time datetime="2023-11-14T22:13:20.000Z" title="2023-11-14 22:13 UTC">today at 7:13 AM</time>.',
    );
    // A card's time and a message's time for the same moment read the same.
    expect(renderMrkdwn(token, {}, tokyo)).toContain(formatTime(new Date(1_700_000_000_000), tokyo));
    const nextDay = { ...tokyo, now: new Date('2023-11-16T01:00:00Z') };
    expect(renderMrkdwn('<!date^1700000000^{date_short_pretty} at {time}|x>', {}, nextDay)).toContain(
      '>yesterday at 7:13 AM<',
    );
    const later = { ...tokyo, now: new Date('2023-12-01T00:00:00Z') };
    expect(renderMrkdwn('<!date^1700000000^{date_short_pretty}|x>', {}, later)).toContain('>Nov 15, 2023<');
    expect(renderMrkdwn('<!date^1700000000^{date_num} {time_secs}|x>', {}, tokyo)).toContain('>2023-11-15 7:13:20 AM<');
    expect(
      renderMrkdwn('<!date^1700000000^{ago}|x>', {}, { ...tokyo, now: new Date(1_700_000_000_000 + 3 * 3_600_000) }),
    ).toContain('>3 hours ago<');
  });

  it('shows the fallback of a date token it cannot read, and links one that carries a link', () => {
    expect(renderMrkdwn('<!date^1700000000^{no_such_token}|2023-11-14 22:13 UTC>')).toContain(
      '>2023-11-14 22:13 UTC</time>',
    );
    expect(renderMrkdwn('<!date^nonsense^{time}|fallback>')).toBe('fallback');
    expect(renderMrkdwn('<!date^1700000000^{date_num}^https://example.com/a|x>', {}, { timeZone: 'UTC' })).toMatch(
      /^<a href="https:\/\/example.com\/a"[^>]*><time[^>]*>2023-11-14<\/time><\/a>$/,
    );
  });

  it('names mentioned people and channels', () => {
    expect(renderMrkdwn('<@U0ALICE> in <#C0GAMEDAY|gameday>', { U0ALICE: 'alice' })).toBe(
      '<span class="mention">@alice</span> in <span class="mention">#gameday</span>',
    );
    expect(renderMrkdwn('<@U0NOBODY>')).toBe('<span class="mention">@U0NOBODY</span>');
    expect(renderMrkdwn('<@U1>', { U1: '<i>x</i>' })).toBe('<span class="mention">@&lt;i&gt;x&lt;/i&gt;</span>');
  });

  it('turns newlines into line breaks, quotes into blockquotes and known emoji into characters', () => {
    expect(renderMrkdwn('one\ntwo')).toBe('one<br>two');
    expect(renderMrkdwn('> quoted\nafter')).toBe('<blockquote>quoted</blockquote>after');
    expect(renderMrkdwn('&gt; not a quote')).toBe('&gt; not a quote');
    expect(renderMrkdwn(':white_check_mark: done :no_such_emoji:')).toBe('✅ done :no_such_emoji:');
  });

  it('cannot be confused by the characters it uses internally', () => {
    expect(renderMrkdwn('\u00000\u0000 <https://x.test|y>')).toBe(
      '0 <a href="https://x.test" target="_blank" rel="noopener noreferrer">y</a>',
    );
  });
});

describe('renderPlainText and escapeHtml', () => {
  it('escape everything and keep line breaks and emoji', () => {
    expect(renderPlainText('*a* <b>\n:warning:')).toBe('*a* &lt;b&gt;<br>⚠️');
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});

describe('emoji', () => {
  /**
   * Every :short_name: in the bot's source, where it stands in text (not inside words, keys or
   * times). The store writes nothing a person reads (its `:memory:` is SQLite's), so it is left out.
   */
  function shortNamesInBotSource(): Set<string> {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
      );
    const names = new Set<string>();
    for (const file of files(new URL('../../../src/', import.meta.url).pathname).filter(
      (path) => !path.includes('/src/store/'),
    )) {
      for (const match of readFileSync(file, 'utf8').matchAll(/(?<![\w}:])(:[a-z][a-z0-9_+-]*:)(?![\w:])/g))
        names.add(match[1]!);
    }
    return names;
  }

  it('draws every emoji the bot writes as Slack does, not as its short name', () => {
    const used = shortNamesInBotSource();
    expect(used).toContain(':dart:');
    expect(used).toContain(':checkered_flag:');
    expect([...used].filter((name) => renderPlainText(name) === name)).toEqual([]);
  });
});
