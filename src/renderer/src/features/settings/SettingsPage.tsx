import { useDocumentTitle } from '../../app/useDocumentTitle'
import { ProviderForm } from './ProviderForm'
import { SandboxSettings } from './SandboxSettings'
import { ThemeSetting } from './ThemeSetting'
import './settings.css'

export function SettingsPage() {
  useDocumentTitle('Settings')
  return (
    <div className="page">
      <header className="page-header">
        <h1>Settings</h1>
      </header>

      <section className="section" aria-labelledby="provider-heading">
        <h2 id="provider-heading" className="section-title">
          Model provider
        </h2>
        <p className="section-lead muted">
          The model Ralph uses for tasks. Keys never go into the database or the logs.
        </p>
        <ProviderForm />
      </section>

      <section className="section" aria-labelledby="sandbox-heading">
        <h2 id="sandbox-heading" className="section-title">
          Sandbox
        </h2>
        <p className="section-lead muted">
          The model’s commands run in a sandbox: your home, credential stores (.ssh, .aws …) and .env files
          stay hidden, and each command has memory, process and file-size limits. Per project:
        </p>
        <SandboxSettings />
      </section>

      <section className="section" aria-labelledby="appearance-heading">
        <h2 id="appearance-heading" className="section-title">
          Appearance
        </h2>
        <div className="card setting-row">
          <div>
            <p className="setting-label" id="theme-label">
              Theme
            </p>
            <p className="hint">System follows your operating system's light or dark mode.</p>
          </div>
          <ThemeSetting />
        </div>
      </section>
    </div>
  )
}
