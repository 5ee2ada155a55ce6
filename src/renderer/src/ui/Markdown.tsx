import { memo, type ReactNode } from 'react'
import { cx } from './cx'
import './markdown.css'

/**
 * The model's markdown as React elements (never as HTML: nothing it writes can run): headings, paragraphs,
 * lists, quotes, fenced code, rules, and inline code, bold, italics and http(s) links. What it does not know
 * stays as the text it is.
 */
export const Markdown = memo(function Markdown({ text, className }: { text: string; className?: string }) {
  return <div className={cx('markdown', className)}>{renderBlocks(parseBlocks(text))}</div>
})

type Block =
  | { kind: 'p'; text: string }
  | { kind: 'h'; level: number; text: string }
  | { kind: 'code'; lang: string; text: string }
  | { kind: 'quote'; blocks: Block[] }
  | { kind: 'list'; ordered: boolean; start: number; items: string[] }
  | { kind: 'hr' }

const FENCE = /^\s{0,3}(```|~~~)\s*([\w+-]*)\s*$/
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/
const NUMBERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/
const QUOTE = /^\s{0,3}>\s?(.*)$/

/** Splits markdown into blocks, line by line. An unclosed fence (text still streaming) runs to the end. */
export function parseBlocks(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const blocks: Block[] = []
  let para: string[] = []
  const endPara = () => {
    if (para.length) blocks.push({ kind: 'p', text: para.join('\n') })
    para = []
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const fence = FENCE.exec(line)
    if (fence) {
      endPara()
      const body: string[] = []
      while (++i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!)) body.push(lines[i]!)
      blocks.push({ kind: 'code', lang: fence[2] ?? '', text: body.join('\n') })
      continue
    }
    if (!line.trim()) {
      endPara()
      continue
    }
    const heading = HEADING.exec(line)
    if (heading) {
      endPara()
      blocks.push({ kind: 'h', level: heading[1]!.length, text: heading[2]! })
      continue
    }
    if (RULE.test(line)) {
      endPara()
      blocks.push({ kind: 'hr' })
      continue
    }
    if (QUOTE.test(line)) {
      endPara()
      const quoted: string[] = []
      for (; i < lines.length && QUOTE.test(lines[i]!); i++) quoted.push(QUOTE.exec(lines[i]!)![1]!)
      i--
      blocks.push({ kind: 'quote', blocks: parseBlocks(quoted.join('\n')) })
      continue
    }
    const bullet = BULLET.exec(line)
    const numbered = NUMBERED.exec(line)
    if (bullet || numbered) {
      endPara()
      const ordered = !bullet
      const item = ordered ? NUMBERED : BULLET
      const items: string[] = []
      for (; i < lines.length; i++) {
        const m = item.exec(lines[i]!)
        if (m) items.push(m[ordered ? 2 : 1]!)
        // An indented line continues the item above it.
        else if (items.length && /^\s{2,}\S/.test(lines[i]!))
          items[items.length - 1] += `\n${lines[i]!.trim()}`
        else break
      }
      i--
      blocks.push({ kind: 'list', ordered, start: ordered ? Number(numbered![1]) : 1, items })
      continue
    }
    para.push(line)
  }
  endPara()
  return blocks
}

function renderBlocks(blocks: Block[]): ReactNode[] {
  return blocks.map((b, i) => {
    switch (b.kind) {
      case 'p':
        return <p key={i}>{inline(b.text)}</p>
      case 'h': {
        // Headings inside a card stay small: the card's own title is the h3.
        const Tag = (b.level <= 2 ? 'h4' : b.level === 3 ? 'h5' : 'h6') as 'h4'
        return <Tag key={i}>{inline(b.text)}</Tag>
      }
      case 'code':
        return (
          <pre key={i} data-lang={b.lang || undefined}>
            <code>{b.text}</code>
          </pre>
        )
      case 'quote':
        return <blockquote key={i}>{renderBlocks(b.blocks)}</blockquote>
      case 'list': {
        const items = b.items.map((item, k) => <li key={k}>{inline(item)}</li>)
        return b.ordered ? (
          <ol key={i} start={b.start === 1 ? undefined : b.start}>
            {items}
          </ol>
        ) : (
          <ul key={i}>{items}</ul>
        )
      }
      case 'hr':
        return <hr key={i} />
    }
  })
}

// Inline code first (nothing inside it is markdown), then links, bold, italics.
const INLINE =
  /`([^`\n]+)`|\[([^\]\n]+)\]\(([^)\s]+)\)|\*\*([^*\n]+)\*\*|__([^_\n]+)__|\*([^*\s][^*\n]*)\*|\b_([^_\n]+)_\b/g

/** Inline markdown of one block as React nodes; a soft line break stays a line break. */
export function inline(text: string): ReactNode[] {
  const out: ReactNode[] = []
  let last = 0
  let key = 0
  const plain = (s: string) => {
    const lines = s.split('\n')
    lines.forEach((line, i) => {
      if (i) out.push(<br key={key++} />)
      if (line) out.push(line)
    })
  }
  for (const m of text.matchAll(INLINE)) {
    plain(text.slice(last, m.index))
    last = m.index + m[0].length
    if (m[1] !== undefined) out.push(<code key={key++}>{m[1]}</code>)
    else if (m[2] !== undefined) {
      const href = m[3]!
      out.push(
        /^https?:\/\//i.test(href) ? (
          <a key={key++} href={href} target="_blank" rel="noreferrer noopener">
            {m[2]}
          </a>
        ) : (
          // Relative links point into the project, which a browser cannot open: the text says where.
          <span key={key++} title={href}>
            {m[2]}
          </span>
        ),
      )
    } else if (m[4] !== undefined || m[5] !== undefined)
      out.push(<strong key={key++}>{inline(m[4] ?? m[5]!)}</strong>)
    else out.push(<em key={key++}>{inline(m[6] ?? m[7]!)}</em>)
  }
  plain(text.slice(last))
  return out
}
