import { useState, type FormEvent } from 'react'
import type { EngineInstallInfo } from '../../../../shared/api/engines'
import { useClient } from '../../app/ClientProvider'
import { FieldError } from '../../app/FieldError'
import { useCall } from '../../app/queries'
import { ActionButton, Button, useSingleFlight } from '../../ui'
import { HintText } from './HintText'
import { useLocateEngine } from './queries'

/** The program's usual name, for the path field's example. */
const programName = (id: EngineInstallInfo['id']) => (id === 'claude-code' ? 'claude' : 'codex')

/**
 * Locate… for one engine: a path field (the host runs the program's `--version` before storing it), the folders
 * searched when it was not found, and Forget for a located program. Both hosts take a typed path: the desktop
 * bridge picks folders only.
 */
export function LocateEngine({ install }: { install: EngineInstallInfo }) {
  const locate = useLocateEngine()
  const client = useClient()
  const nativePicker = useCall('app.info', {}, { staleTime: Infinity }).data?.nativeFilePicker ?? false
  const [open, setOpen] = useState(false)
  const [path, setPath] = useState('')
  const fieldId = `locate-${install.id}`
  const flight = useSingleFlight(async () => {
    await locate.mutateAsync({ engine: install.id, path })
    setOpen(false)
    setPath('')
  })
  /** The desktop app's file picker: the chosen program is checked at once. */
  const choose = async () => {
    const picked = await client.call('dialog.pickFile', { title: `Locate ${install.label}` })
    if (!picked.path) return
    setPath(picked.path)
    await locate.mutateAsync({ engine: install.id, path: picked.path })
    setOpen(false)
    setPath('')
  }
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (path.trim()) void flight.run()
  }
  const searched = !install.installed ? install.searched : undefined
  return (
    <div className="engine-locate">
      {searched?.length ? (
        <details className="engine-searched">
          <summary>{`Looked in ${searched.length} folders`}</summary>
          <ul aria-label={`Folders searched for ${install.label}`}>
            {searched.map((dir) => (
              <li key={dir}>
                <code>{dir}</code>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {install.located && install.installed ? (
        <div className="engine-located">
          <p className="hint">
            {'Using the program you located: '}
            <code>{install.located}</code>
          </p>
          <ActionButton
            size="sm"
            variant="ghost"
            onAction={() => locate.mutateAsync({ engine: install.id, path: null })}
            title="Look for it on PATH again"
          >
            Forget
          </ActionButton>
        </div>
      ) : null}
      {open ? (
        <form className="engine-locate-form" onSubmit={submit} aria-label={`Locate ${install.label}`}>
          <label htmlFor={fieldId}>{`Path of the ${install.label} program`}</label>
          <div className="row">
            <input
              id={fieldId}
              value={path}
              placeholder={`/full/path/to/${programName(install.id)}`}
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => {
                setPath(e.target.value)
                locate.reset()
              }}
              aria-describedby={`${fieldId}-hint`}
            />
            <Button
              type="submit"
              size="sm"
              variant="primary"
              disabledReason={
                flight.busy ? 'Checking…' : !path.trim() ? 'Type the program’s path first' : null
              }
              aria-busy={flight.busy || undefined}
            >
              {flight.busy ? 'Checking…' : 'Check and use'}
            </Button>
            {nativePicker ? (
              <ActionButton size="sm" onAction={choose}>
                Choose…
              </ActionButton>
            ) : null}
            <Button size="sm" variant="ghost" onClick={() => setOpen(false)}>
              Cancel
            </Button>
          </div>
          <p className="hint" id={`${fieldId}-hint`}>
            <HintText
              text={`Ralph runs it with \`--version\` and uses it from then on, before anything on PATH (\`which ${programName(install.id)}\` in a terminal shows where yours is).`}
            />
          </p>
        </form>
      ) : !install.supported ? (
        <Button size="sm" onClick={() => setOpen(true)}>
          Locate…
        </Button>
      ) : null}
      <FieldError error={locate.error} />
    </div>
  )
}
