import { describe, expect, it } from 'vitest'
import { htmlToMarkdown } from '../../../../src-main/tools/web/page-markdown'

const PROSE =
  '<p>A paragraph long enough to read as the content of the page, not as a navigation link or a label.</p>'

describe('htmlToMarkdown', () => {
  it('fences a bare <pre> of highlighted spans, with the language its wrapper names', () => {
    const html = `<html><body><article><h2>Usage</h2>${PROSE}
      <div class="highlight-python3 notranslate"><div class="highlight"><pre><span></span><span class="kn">import</span> <span class="nn">json</span>
<span class="n">json</span><span class="o">.</span><span class="n">loads</span><span class="p">(</span><span class="s1">'[1, 2]'</span><span class="p">)</span>
</pre></div></div>${PROSE}</article></body></html>`

    const { text } = htmlToMarkdown(html, 'https://docs.example/usage')

    expect(text).toContain("```python\nimport json\njson.loads('[1, 2]')\n```")
  })

  it('fences code holding backticks with a longer fence', () => {
    const html = `<html><body><article>${PROSE}<pre>run \`\`\`make\`\`\` first</pre>${PROSE}</article></body></html>`

    expect(htmlToMarkdown(html, 'https://docs.example/').text).toContain('````\nrun ```make``` first\n````')
  })

  it('keeps http, https and mailto links absolute and turns other schemes into plain text', () => {
    const html = `<html><head><base href="https://cdn.example/base/"></head><body><article>${PROSE}
      <p><a href="guide.html">guide</a>, <a href="mailto:a@example.com">mail</a>, <a href="javascript:alert(1)">run</a>, <a href="#top">top</a></p>
      ${PROSE}</article></body></html>`

    const { text } = htmlToMarkdown(html, 'https://docs.example/page')

    expect(text).toContain(
      '[guide](https://cdn.example/base/guide.html), [mail](mailto:a@example.com), run, top',
    )
    expect(text).not.toContain('javascript:')
  })
})
