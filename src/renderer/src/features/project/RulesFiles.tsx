import { useState } from 'react'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { ScrollText } from 'lucide-react'
import type { RulesFileInfo } from '../../../../shared/api/rules'
import { useClient } from '../../app/ClientProvider'
import { HeaderDialog } from './HeaderDialog'
import { FieldError } from '../../app/FieldError'
import { callKey, errorMessage, useCall } from '../../app/queries'
import { Switch, useSingleFlight } from '../../ui'

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

function RuleRow({ file, projectId, fileCap }: { file: RulesFileInfo; projectId: number; fileCap: number }) {
  const client = useClient()
  const queryClient = useQueryClient()
  const [pending, setPending] = useState<boolean | null>(null)
  const save = useMutation({
    mutationFn: (enabled: boolean) => client.call('rules.set', { projectId, path: file.path, enabled }),
    onSuccess: (next) => queryClient.setQueryData(callKey('rules.list', { projectId }), next),
  })
  // One toggle per click until the core answers: a double click (both clicks before React re-renders) toggles once.
  const flight = useSingleFlight(async (checked: boolean) => {
    // Shown at once (a controlled checkbox would flip back until the core answers).
    setPending(checked)
    try {
      await save.mutateAsync(checked)
    } finally {
      setPending(null)
    }
  })
  const id = `rule-${projectId}-${file.path.replace(/[^a-zA-Z0-9]/g, '-')}`
  const enabled = pending ?? file.enabled
  return (
    <li className="rules-file">
      <Switch
        id={id}
        checked={enabled}
        disabled={flight.busy}
        onChange={(checked) => void flight.run(checked)}
      >
        {file.path}
      </Switch>
      <p className="hint" id={`${id}-hint`}>
        {size(file.bytes)}
        {enabled
          ? file.capped
            ? ` — capped: the model sees its first ${fileCap.toLocaleString('en-US')} characters`
            : ' — the model reads it'
          : ' — off: the model does not read it'}
      </p>
      <FieldError error={save.error} />
    </li>
  )
}

function RulesList({ projectId }: { projectId: number }) {
  const rules = useCall('rules.list', { projectId })
  if (rules.error)
    return (
      <p className="field-error" role="alert">
        {errorMessage(rules.error)}
      </p>
    )
  if (!rules.data) return <p className="hint">Looking for rules files…</p>
  if (rules.data.files.length === 0)
    return (
      <p className="hint">
        No rules files at the project root (AGENTS.md, CLAUDE.md, .cursorrules, .cursor/rules/, .clinerules,
        .github/copilot-instructions.md).
      </p>
    )
  return (
    <ul className="rules-files" aria-label="Rules files">
      {rules.data.files.map((f) => (
        <RuleRow key={f.path} file={f} projectId={projectId} fileCap={rules.data.fileCapChars} />
      ))}
    </ul>
  )
}

/**
 * The project's rules files (AGENTS.md, CLAUDE.md …) that every iteration and the verifier read, with a switch per
 * file: a header button that opens them in a dialog, so the chat keeps its height. Looked up only when opened.
 */
export function RulesFiles({ projectId }: { projectId: number }) {
  return (
    <HeaderDialog
      icon={<ScrollText size={16} aria-hidden />}
      title="Rules files"
      description="Instructions for coding agents that the project keeps at its root. Every iteration reads the ones switched on, and so does the verifier (but never one the task itself changed)."
    >
      {() => <RulesList projectId={projectId} />}
    </HeaderDialog>
  )
}
