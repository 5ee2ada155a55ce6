import { render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { Markdown } from './Markdown'

describe('Markdown', () => {
  it('renders headings, lists, code, quotes and inline marks as elements', () => {
    const { container } = render(
      <Markdown
        text={[
          '## Plan',
          '',
          'Read **the menu**, then *edit* `menu.html`.',
          '',
          '- one',
          '- two',
          '',
          '3. third',
          '4. fourth',
          '',
          '> quoted',
          '',
          '```ts',
          'const a = 1 // **not bold**',
          '```',
          '',
          '---',
        ].join('\n')}
      />,
    )
    expect(screen.getByRole('heading', { name: 'Plan' }).tagName).toBe('H4')
    expect(screen.getByText('the menu').tagName).toBe('STRONG')
    expect(screen.getByText('edit').tagName).toBe('EM')
    expect(screen.getByText('menu.html').tagName).toBe('CODE')
    expect(screen.getAllByRole('list').map((l) => [l.tagName, l.textContent])).toEqual([
      ['UL', 'onetwo'],
      ['OL', 'thirdfourth'],
    ])
    expect(container.querySelector('ol')).toHaveAttribute('start', '3')
    expect(container.querySelector('blockquote')).toHaveTextContent('quoted')
    expect(container.querySelector('pre')).toHaveTextContent('const a = 1 // **not bold**')
    expect(container.querySelector('pre')).toHaveAttribute('data-lang', 'ts')
    expect(container.querySelector('hr')).not.toBeNull()
  })

  it('never renders the model’s HTML, and links only to http(s)', () => {
    const { container } = render(
      <Markdown
        text={'<img src=x onerror="alert(1)"> [site](https://example.com) [evil](javascript:void)'}
      />,
    )
    expect(container.querySelector('img')).toBeNull()
    expect(container).toHaveTextContent('<img src=x onerror="alert(1)">')
    expect(screen.getByRole('link', { name: 'site' })).toHaveAttribute('href', 'https://example.com')
    expect(screen.queryByRole('link', { name: 'evil' })).toBeNull()
    expect(screen.getByText('evil')).toHaveAttribute('title', 'javascript:void')
  })

  it('shows an unclosed code fence (text still streaming) as code to the end', () => {
    const { container } = render(<Markdown text={'Here:\n\n```\nline 1\nline 2'} />)
    expect(container.querySelector('pre')).toHaveTextContent('line 1 line 2')
  })
})
