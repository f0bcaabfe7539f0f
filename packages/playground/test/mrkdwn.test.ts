import { describe, expect, it } from 'vitest';
import { escapeHtml, renderMrkdwn, renderPlainText } from '../src/public/mrkdwn.js';

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
    expect(renderMrkdwn('<https://example.com>')).toBe('<a href="https://example.com" target="_blank" rel="noopener noreferrer">https://example.com</a>');
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
    expect(renderMrkdwn('```\nline *1*\n<b>2</b>\n```')).toBe('<pre class="code-block">line *1*\n&lt;b&gt;2&lt;/b&gt;\n</pre>');
  });

  it('shows the fallback of a date token', () => {
    expect(renderMrkdwn('until <!date^1700000000^{date_short_pretty} at {time}|2023-11-14 22:13 UTC>.')).toBe(
      'until <time datetime="2023-11-14T22:13:20.000Z">2023-11-14 22:13 UTC</time>.',
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
    expect(renderMrkdwn('\u00000\u0000 <https://x.test|y>')).toBe('0 <a href="https://x.test" target="_blank" rel="noopener noreferrer">y</a>');
  });
});

describe('renderPlainText and escapeHtml', () => {
  it('escape everything and keep line breaks and emoji', () => {
    expect(renderPlainText('*a* <b>\n:warning:')).toBe('*a* &lt;b&gt;<br>⚠️');
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});
