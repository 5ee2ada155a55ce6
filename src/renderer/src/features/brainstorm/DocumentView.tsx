import type { ReactNode } from 'react'
import { Badge, Tabs, TabsContent, TabsList, TabsTrigger } from '../../ui'

const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v)
const humanize = (key: string) => key.replace(/<=.*$/, '').replace(/_/g, ' ')

/** The document's YAML as nested sections and lists: what "rendered" means for YAML-in-a-fence documents. */
function Rendered({ value }: { value: unknown }): ReactNode {
  // A list of named things (the roadmap's tracks) reads best as titled blocks.
  if (Array.isArray(value) && value.length && value.every((v) => isRecord(v) && typeof v.name === 'string')) {
    return (
      <ol className="bs-yaml-items">
        {(value as Record<string, unknown>[]).map(({ id, name, ...rest }, i) => (
          <li key={i} className="bs-yaml-item">
            <p className="bs-yaml-item-title">
              {id === undefined ? '' : `${String(id)}. `}
              {String(name)}
            </p>
            <Rendered value={rest} />
          </li>
        ))}
      </ol>
    )
  }
  if (Array.isArray(value)) {
    return (
      <ul className="bs-yaml-list">
        {value.map((v, i) => (
          <li key={i}>
            <Rendered value={v} />
          </li>
        ))}
      </ul>
    )
  }
  if (value && typeof value === 'object') {
    return (
      <dl className="bs-yaml-map">
        {Object.entries(value as Record<string, unknown>).map(([k, v]) => (
          <div key={k}>
            <dt>{humanize(k)}</dt>
            <dd>
              <Rendered value={v} />
            </dd>
          </div>
        ))}
      </dl>
    )
  }
  return <span>{value === null || value === undefined ? '—' : String(value)}</span>
}

/** One document: rendered and raw, with its line count against its limit. */
export function DocumentView({
  name,
  text,
  parsed,
  lines,
  limit,
}: {
  name: string
  text: string
  parsed: unknown
  lines: number
  limit: number
}) {
  // The vision's YAML sits under one key (vision_yaml<=300t): show what is inside it.
  const root =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed) && Object.keys(parsed).length === 1
      ? Object.values(parsed)[0]
      : parsed
  return (
    <section className="bs-card bs-doc" aria-label={name}>
      <div className="bs-doc-head">
        <h3>{name}</h3>
        <Badge tone={lines > limit ? 'bad' : 'ok'} data-testid={`${name}-lines`}>
          {lines} / {limit} lines
        </Badge>
      </div>
      <Tabs defaultValue="rendered">
        <TabsList label={`${name} view`}>
          <TabsTrigger value="rendered">Rendered</TabsTrigger>
          <TabsTrigger value="raw">Raw</TabsTrigger>
        </TabsList>
        <TabsContent value="rendered" className="bs-doc-body">
          {root === null || root === undefined ? (
            <p className="muted">The YAML does not parse; see the raw text.</p>
          ) : (
            <Rendered value={root} />
          )}
        </TabsContent>
        <TabsContent value="raw" className="bs-doc-body">
          <pre className="bs-raw">{text}</pre>
        </TabsContent>
      </Tabs>
    </section>
  )
}
