/** The vault's secrets, none ticked unless the user ticks them: a ticked one is sent to every remote job. */
export function WorkersSecrets({
  names,
  ticked,
  error,
  onChange,
}: {
  names: string[]
  ticked: string[]
  error: string | undefined
  onChange(next: string[]): void
}) {
  // A ticked name the vault no longer has stays listed, so it can be unticked.
  const all = [...new Set([...names, ...ticked])].sort()
  return (
    <fieldset className="workers-secrets" aria-describedby="workers-secrets-hint">
      <legend className="setting-label">Secrets for remote workers</legend>
      <p className="hint" id="workers-secrets-hint">
        MCP servers’ secrets from the vault stay on this machine. A secret you tick here leaves this machine:
        it is sent to each remote job (as its environment, or a Kubernetes Secret deleted with the job).
      </p>
      {all.length === 0 ? (
        <p className="hint">The vault holds no secrets.</p>
      ) : (
        <ul className="workers-secret-list">
          {all.map((name) => (
            <li key={name}>
              <label className="switch">
                <input
                  type="checkbox"
                  checked={ticked.includes(name)}
                  onChange={(e) =>
                    onChange(e.target.checked ? [...ticked, name] : ticked.filter((n) => n !== name))
                  }
                />
                <span className="mono">{name}</span>
                {names.includes(name) ? null : <span className="muted">(not in the vault)</span>}
              </label>
            </li>
          ))}
        </ul>
      )}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  )
}
