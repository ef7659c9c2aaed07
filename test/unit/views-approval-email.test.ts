import { describe, expect, it } from 'vitest';
import { buildEmailDetail } from '../../src/views/approval-email.js';
import { analyseEmail } from '../../src/views/email-content.js';

describe('analyseEmail', () => {
  it('finds links and every remote resource however the html is written, and no data or cid address', () => {
    const content = analyseEmail(
      [
        '<A HREF=https://a.example/x>Go</A>',
        '<img SRC="https://t.example/p.gif" style="display: none">',
        '<img src="data:image/png;base64,AAAA"><img src="cid:logo">',
        '<picture><source srcset="https://s.example/1.png 1x, https://s.example/2.png 2x"></picture>',
        '<table background="https://bg.example/t.png"><tr><td>cell</td></tr></table>',
        '<link rel=stylesheet href="https://css.example/s.css">',
        '<style>@import "https://css.example/i.css"; p { background: url(https://css.example/p.png) }</style>',
        '<meta http-equiv="refresh" content="0; url=https://away.example/">',
        '<video poster="https://v.example/poster.jpg" src="https://v.example/v.mp4"></video>',
        '<script src="https://js.example/x.js">var u = "url(https://not.example/x)";</script>',
        '<button formaction="https://post.example/b">Send</button>',
      ].join(''),
    );
    expect(content.links).toEqual([{ text: 'Go', href: 'https://a.example/x' }]);
    expect(content.resources.map((r) => r.url).sort()).toEqual(
      [
        'https://t.example/p.gif',
        'https://s.example/1.png',
        'https://s.example/2.png',
        'https://bg.example/t.png',
        'https://css.example/s.css',
        'https://css.example/i.css',
        'https://css.example/p.png',
        'https://away.example/',
        'https://v.example/poster.jpg',
        'https://v.example/v.mp4',
        'https://js.example/x.js',
        'https://post.example/b',
      ].sort(),
    );
    expect(content.resources.find((r) => r.url === 'https://t.example/p.gif')?.pixel).toBe(true);
    expect(content.text).toContain('Go [https://a.example/x]');
    expect(content.text).not.toContain('var u');
  });
});

describe('buildEmailDetail', () => {
  it('pages a huge text within Slack’s limits and says where and how much it cut', () => {
    // Under the html read cap, but escaped (`&` → `&amp;`) more text than the thread shows.
    const content = analyseEmail(`<p>${'&&&&&&&&& '.repeat(19_000)}</p>`);
    const pages = buildEmailDetail({ approvalId: 'a1', to: 'x@y.example', subject: 's', content });
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) {
      expect(page.blocks.length).toBeLessThanOrEqual(50);
      for (const block of page.blocks) {
        const text = (block as { text?: { text: string } }).text?.text ?? '';
        expect(text.length).toBeLessThanOrEqual(3000);
        expect(text).not.toMatch(/<b|&(?!amp;|lt;|gt;)/);
        expect(text).not.toMatch(/&(a(m(p)?)?|l(t)?|g(t)?)?$/);
      }
    }
    expect(JSON.stringify(pages.at(-1)?.blocks)).toContain('The text is cut here');
    expect(JSON.stringify(pages)).not.toContain('html were read');
  });

  it('reads at most 200,000 characters of html and says so', () => {
    const content = analyseEmail(`<p>${'word '.repeat(60_000)}</p><a href="https://late.example/">late</a>`);
    expect(content.htmlCut).toBeGreaterThan(100_000);
    expect(content.links).toEqual([]);
    const pages = buildEmailDetail({ approvalId: 'a1', to: 'x', subject: 's', content });
    expect(JSON.stringify(pages)).toContain('Only the first 200,000 characters of the html were read');
  });

  it('shows a short email whole, with no cut note', () => {
    const pages = buildEmailDetail({
      approvalId: 'a1',
      to: 'x@y.example',
      subject: 's',
      content: analyseEmail('<p>Short and sweet.</p>'),
    });
    expect(pages).toHaveLength(1);
    const all = JSON.stringify(pages[0]?.blocks);
    expect(all).toContain('Short and sweet.');
    expect(all).not.toContain('cut');
  });
});
