import { Cpu } from 'lucide-react'
import { useState } from 'react'
import { EngineChooser, engineName, useEngines, useProjectEngine } from '../engines'
import { Dialog, DialogContent, DialogTrigger } from '../../ui'
import './engineChip.css'

/**
 * The header's "Engine: …" chip: which engine runs this project's tasks. It opens the Engine dialog with the same
 * chooser as Settings (rendered only while open).
 */
export function EngineChip({ projectId }: { projectId: number }) {
  const [open, setOpen] = useState(false)
  const setting = useProjectEngine(projectId)
  const agent = !!setting.data && setting.data.engine !== 'built-in'
  // Built-in needs no lookup; an agent CLI's version comes from the host's (cached) lookup.
  const engines = useEngines(undefined, agent)
  if (!setting.data) return null
  const label = `Engine: ${engineName(setting.data, engines.data?.installs)}`
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <button type="button" className="engine-chip" title={label} data-testid="engine-chip">
          <Cpu size={13} aria-hidden />
          <span className="engine-chip-text">{label}</span>
        </button>
      </DialogTrigger>
      <DialogContent
        title="Engine"
        description="What runs each iteration of this project’s tasks. Built-in is Ralph’s own loop with your model provider; Claude Code and Codex are your own installed agent, run inside Ralph’s sandbox with Ralph’s snapshots, plan gates and verification around it."
      >
        {open ? <EngineChooser projectId={projectId} installLink /> : null}
      </DialogContent>
    </Dialog>
  )
}
