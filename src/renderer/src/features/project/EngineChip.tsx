import { Cpu } from 'lucide-react'
import { EngineChooser, engineName, useEngines, useProjectEngine } from '../engines'
import { HeaderDialog } from './HeaderDialog'

/** The header's "Engine: …" button: which engine runs this project's tasks; it opens the chooser. */
export function EngineChip({ projectId }: { projectId: number }) {
  const setting = useProjectEngine(projectId)
  const agent = !!setting.data && setting.data.engine !== 'built-in'
  // Built-in needs no lookup; an agent CLI's version comes from the host's (cached) lookup.
  const engines = useEngines(undefined, agent)
  const label = setting.data ? `Engine: ${engineName(setting.data, engines.data?.installs)}` : 'Engine'
  return (
    <HeaderDialog
      icon={<Cpu size={16} aria-hidden />}
      title="Engine"
      label={label}
      description="What runs each iteration of this project's tasks. Built-in runs Ralph's own loop with your model provider; Claude Code and Codex run your own installed agent inside Ralph's sandbox, with Ralph's snapshots, plan gates and verification around it."
    >
      {() => <EngineChooser projectId={projectId} />}
    </HeaderDialog>
  )
}
