import type { ReactNode } from 'react'
import { useDocumentTitle } from '../../app/useDocumentTitle'
import { EngineSettings } from '../engines'
import { McpServers } from './McpServers'
import { PricesSetting } from './PricesSetting'
import { ProviderForm } from './ProviderForm'
import { SandboxSettings } from './SandboxSettings'
import { ThemeSetting } from './ThemeSetting'
import { WorkersSettings } from './WorkersSettings'
import './settings.css'

/** One settings section: its heading (which names the section), an optional lead, then its controls. */
function Section({
  id,
  title,
  lead,
  children,
}: {
  id: string
  title: string
  lead?: ReactNode
  children: ReactNode
}) {
  return (
    <section className="section" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="section-title">
        {title}
      </h2>
      {lead ? <p className="section-lead muted">{lead}</p> : null}
      {children}
    </section>
  )
}

export function SettingsPage() {
  useDocumentTitle('Settings')
  return (
    <div className="page">
      <header className="page-header">
        <h1>Settings</h1>
      </header>

      <Section
        id="provider"
        title="Model provider"
        lead="The model Ralph uses for tasks. Keys never go into the database or the logs."
      >
        <ProviderForm />
      </Section>

      <Section
        id="engine"
        title="Engine"
        lead="Built-in runs Ralph’s own loop with the provider above; Claude Code and Codex run your own installed agent for each iteration, inside Ralph’s sandbox, with Ralph’s snapshots, plan gates and verification around it."
      >
        <EngineSettings />
      </Section>

      <Section
        id="sandbox"
        title="Sandbox"
        lead="The model’s commands run in a sandbox: your home, credential stores (.ssh, .aws …) and .env files stay hidden, and each command has memory, process and file-size limits. Per project:"
      >
        <SandboxSettings />
      </Section>

      <Section
        id="workers"
        title="Workers"
        lead="Where a build’s lanes run: on this machine, as containers on a Docker engine, or as Kubernetes Jobs. Whatever runs elsewhere comes back to be merged and verified here; a remote verdict is never trusted."
      >
        <WorkersSettings />
      </Section>

      <Section
        id="mcp"
        title="MCP servers"
        lead="Servers that give the model more tools (a database, a browser, your issue tracker). Each project can switch any of them off."
      >
        <McpServers />
      </Section>

      <PricesSetting />

      <Section id="appearance" title="Appearance">
        <div className="card setting-row">
          <div>
            <p className="setting-label" id="theme-label">
              Theme
            </p>
            <p className="hint">System follows your operating system's light or dark mode.</p>
          </div>
          <ThemeSetting />
        </div>
      </Section>
    </div>
  )
}
