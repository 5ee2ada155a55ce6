import { useState, type FormEvent } from 'react'
import {
  engineIds,
  engineLabels,
  type EngineChoice,
  type EngineInstallInfo,
  type ProjectEngineSetting,
} from '../../../../shared/api/engines'
import { FieldError } from '../../app/FieldError'
import { routeHash } from '../../app/routes'
import { Button, Tooltip, cx, useSingleFlight } from '../../ui'
import { unavailableReason, useEngines, useSetEngine } from './queries'
import './engines.css'

/** One option's second line: what it runs. */
function detail(id: EngineChoice, installs: EngineInstallInfo[] | undefined): string {
  if (id === 'built-in') return 'Ralph’s own loop with your model provider'
  const install = installs?.find((i) => i.id === id)
  if (!install) return 'Looking…'
  if (!install.installed) return 'Not installed'
  if (install.version === null) return 'Does not start'
  return install.supported ? install.version : `${install.version}: too old`
}

function EngineOption({
  id,
  name,
  checked,
  installs,
  onPick,
}: {
  id: EngineChoice
  name: string
  checked: boolean
  installs: EngineInstallInfo[] | undefined
  onPick(id: EngineChoice): void
}) {
  const reason = unavailableReason(id, installs)
  const detailId = `${name}-${id}-detail`
  const option = (
    <label className={cx('engine-option', checked && 'engine-option-on', reason && 'engine-option-off')}>
      <input
        type="radio"
        name={name}
        value={id}
        checked={checked}
        disabled={!!reason}
        aria-labelledby={`${name}-${id}-name`}
        aria-describedby={reason ? `${detailId}-why` : detailId}
        onChange={() => onPick(id)}
      />
      <span className="engine-option-text">
        <span className="engine-option-name" id={`${name}-${id}-name`}>
          {engineLabels[id]}
        </span>
        <span className="engine-option-detail" id={detailId}>
          {detail(id, installs)}
        </span>
        {reason ? (
          <span className="visually-hidden" id={`${detailId}-why`}>
            {reason}
          </span>
        ) : null}
      </span>
    </label>
  )
  return reason ? <Tooltip content={reason}>{option}</Tooltip> : option
}

function ChooserForm({
  projectId,
  current,
  installs,
  saved,
  onSaved,
  installLink,
}: {
  installLink: boolean
  projectId: number
  current: ProjectEngineSetting
  installs: EngineInstallInfo[] | undefined
  /** The last save from this chooser is what the project has now. */
  saved: boolean
  onSaved(setting: ProjectEngineSetting | null): void
}) {
  const save = useSetEngine(projectId)
  const [engine, setEngine] = useState<EngineChoice>(current.engine)
  const [model, setModel] = useState(current.engineModel ?? '')
  const name = `engine-${projectId}`
  const agent = engine !== 'built-in'
  const engineModel = agent ? model.trim() || null : null
  const changed = engine !== current.engine || (agent && engineModel !== current.engineModel)
  const blocked = unavailableReason(engine, installs)
  const flight = useSingleFlight(async () => {
    onSaved(null)
    onSaved(await save.mutateAsync({ engine, engineModel }))
  })
  const disabledReason = flight.busy
    ? 'Saving…'
    : !changed
      ? 'Nothing changed yet'
      : blocked && engine !== current.engine
        ? blocked
        : null
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!disabledReason) void flight.run()
  }
  return (
    <form className="engine-chooser" onSubmit={submit}>
      <fieldset className="engine-options" role="radiogroup" aria-label="Engine">
        {engineIds.map((id) => (
          <EngineOption
            key={id}
            id={id}
            name={name}
            checked={engine === id}
            installs={installs}
            onPick={(next) => {
              setEngine(next)
            }}
          />
        ))}
      </fieldset>
      {installLink && engineIds.some((id) => unavailableReason(id, installs) && installs) ? (
        <p className="hint">
          {'To install, update or locate one you already have: '}
          <a href={routeHash({ page: 'settings' })}>Settings → Engine</a>.
        </p>
      ) : null}
      {agent ? (
        <div className="field engine-model">
          <label htmlFor={`${name}-model`}>Engine model</label>
          <input
            id={`${name}-model`}
            value={model}
            placeholder={`${engineLabels[engine]}’s default`}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={`${name}-model-hint`}
            onChange={(e) => {
              setModel(e.target.value)
            }}
          />
          <p className="hint" id={`${name}-model-hint`}>
            {`The model ${engineLabels[engine]} is asked for, as it names it. Empty: its own default.`}
          </p>
        </div>
      ) : (
        <p className="hint">Built-in uses the model of Settings → Model provider.</p>
      )}
      <div className="row">
        <Button
          type="submit"
          variant="primary"
          size="sm"
          disabledReason={disabledReason}
          aria-busy={flight.busy || undefined}
        >
          Save engine
        </Button>
        {saved && !changed ? (
          <span className="field-ok" role="status">
            {`Saved: this project’s next tasks run with ${engineLabels[current.engine]}.`}
          </span>
        ) : null}
      </div>
      <FieldError error={save.error} />
    </form>
  )
}

/**
 * The project's engine: Built-in, Claude Code or Codex (one not installed, or too old, is disabled with the reason),
 * and the model the agent is asked for. Settings and the project header's Engine dialog both show this one.
 */
export function EngineChooser({
  projectId,
  installLink = false,
}: {
  projectId: number
  /** Point to Settings for install hints (the header's dialog; Settings shows them itself). */
  installLink?: boolean
}) {
  const engines = useEngines(projectId)
  const [saved, setSaved] = useState<ProjectEngineSetting | null>(null)
  const current = engines.data?.project
  if (engines.error) return <FieldError error={engines.error} />
  if (!current) return <p className="hint">Looking for Claude Code and Codex on this machine…</p>
  // Keyed by the stored setting: a change saved elsewhere (the CLI, another window) resets the form to it.
  return (
    <ChooserForm
      key={`${current.engine}:${current.engineModel ?? ''}`}
      projectId={projectId}
      current={current}
      installs={engines.data?.installs}
      saved={saved !== null && saved.engine === current.engine && saved.engineModel === current.engineModel}
      onSaved={setSaved}
      installLink={installLink}
    />
  )
}
