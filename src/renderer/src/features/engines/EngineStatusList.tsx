import { RefreshCw } from 'lucide-react'
import type { EngineInstallInfo } from '../../../../shared/api/engines'
import { FieldError } from '../../app/FieldError'
import { ActionButton, Badge, Tooltip, type Tone } from '../../ui'
import { HintText } from './HintText'
import { LocateEngine } from './LocateEngine'
import { useCheckAgain, useEngines } from './queries'
import './engines.css'

function status(install: EngineInstallInfo): { text: string; tone: Tone; explain: string } {
  if (!install.installed)
    return {
      text: 'Not installed',
      tone: 'neutral',
      explain: `No ${install.label} on this machine's PATH. Ralph never installs it for you; Locate… points at one.`,
    }
  if (install.version === null)
    return { text: 'Does not start', tone: 'bad', explain: `${install.path} failed when asked its version.` }
  if (!install.supported)
    return {
      text: 'Too old',
      tone: 'warn',
      explain: `Ralph drives ${install.label} ${install.minVersion} or later.`,
    }
  return {
    text: install.version,
    tone: 'ok',
    explain: install.located ? `Located by you at ${install.path}` : `Found at ${install.path}`,
  }
}

/** Each agent CLI on this machine: its version, or how to install or update it; and "Check again". */
export function EngineStatusList() {
  const engines = useEngines()
  const check = useCheckAgain()
  const installs = engines.data?.installs
  return (
    <div className="engine-status">
      <ul className="engine-installs" aria-label="Engines on this machine">
        <li className="engine-install">
          <span className="engine-install-name">Built-in</span>
          <Badge tone="ok">Always available</Badge>
          <p className="hint engine-install-hint">Uses the model provider above.</p>
        </li>
        {installs
          ? installs.map((install) => {
              const s = status(install)
              return (
                <li key={install.id} className="engine-install" data-testid={`engine-install-${install.id}`}>
                  <span className="engine-install-name">{install.label}</span>
                  <Tooltip content={s.explain}>
                    <Badge tone={s.tone} tabIndex={0}>
                      {s.text}
                    </Badge>
                  </Tooltip>
                  {install.hint ? (
                    <p className="hint engine-install-hint">
                      <HintText text={install.hint} />
                    </p>
                  ) : null}
                  <LocateEngine install={install} />
                </li>
              )
            })
          : null}
      </ul>
      {!installs && !engines.error ? (
        <p className="hint">Looking for Claude Code and Codex on this machine…</p>
      ) : null}
      <FieldError error={engines.error} />
      <div className="row">
        <ActionButton
          size="sm"
          icon={<RefreshCw size={14} aria-hidden />}
          onAction={() => check.mutateAsync()}
        >
          Check again
        </ActionButton>
        {engines.data ? (
          <span className="hint">
            {`Checked ${new Date(engines.data.checkedAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}`}
          </span>
        ) : null}
      </div>
      <FieldError error={check.error} />
    </div>
  )
}
