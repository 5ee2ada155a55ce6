import { useStudio } from '../state/store'

export function StatusBar() {
  const connected = useStudio((s) => s.connected)
  const info = useStudio((s) => s.info)
  const provider = useStudio((s) => s.provider)
  const current = useStudio((s) => s.current)
  const route = useStudio((s) => s.route)
  const effective = provider?.effective

  return (
    <footer className="statusbar" role="status">
      <span className={`dot ${connected ? 'ok' : 'bad'}`} aria-hidden />
      <span data-testid="connection">{connected ? 'Connected' : 'Reconnecting…'}</span>
      {info ? (
        <span className="muted">
          {info.host === 'web' ? 'Web host' : 'Desktop'} · v{info.version}
        </span>
      ) : null}
      <span className="sep" />
      {route.page === 'project' && current ? <span className="muted path">{current.path}</span> : null}
      <span data-testid="status-provider">
        {effective ? `${effective.provider} · ${effective.model}` : 'No LLM provider configured'}
      </span>
    </footer>
  )
}
