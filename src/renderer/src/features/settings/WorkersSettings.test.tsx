import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { WorkersCheck, WorkersSettings as Settings } from '../../../../shared/api/workers'
import { defaultWorkersConfig, type WorkersConfig } from '../../../../shared/workersConfig'
import { projectDetail } from '../../test/fixtures'
import { renderWithProviders, sentInput } from '../../test/render'
import { checkForm, formOf } from './workersForm'
import { WorkersSettings } from './WorkersSettings'

const saved = (config: WorkersConfig = defaultWorkersConfig): Settings => ({
  config,
  problem: null,
  secretNames: ['DB_URL', 'GITHUB_TOKEN'],
})

function renderWorkers(handlers: Record<string, (input: unknown) => unknown> = {}) {
  return renderWithProviders(<WorkersSettings />, {
    'projects.list': () => [
      projectDetail({ id: 1, name: 'shop', path: '/w/shop', lastOpenedAt: 5 }),
      projectDetail({ id: 2, name: 'api', path: '/w/api', lastOpenedAt: 9 }),
    ],
    'workers.get': () => saved(),
    ...handlers,
  })
}

describe('the workers form', () => {
  it('checks values with the core’s schema: each error on its field, a number field’s text as "Enter a number."', () => {
    const form = { ...formOf(defaultWorkersConfig), backend: 'docker' as const }
    expect(checkForm(form)).toEqual({ ok: true, config: { ...defaultWorkersConfig, backend: 'docker' } })
    const bad = checkForm({ ...form, memoryMb: '10', cpus: 'two', namespace: 'x'.repeat(64), image: ' ' })
    expect(bad.ok).toBe(false)
    if (bad.ok) return
    expect(bad.errors.memoryMb).toMatch(/>=64/)
    expect(bad.errors.cpus).toBe('Enter a number.')
    expect(bad.errors.namespace).toMatch(/<=63/)
    expect(bad.errors.image).toMatch(/>=1/)
    // Optional text left empty is left out, not saved as "".
    const host = checkForm({ ...form, dockerHost: '  ', context: 'prod', timeoutMinutes: '30' })
    expect(host).toMatchObject({ ok: true, config: { kubernetes: { context: 'prod' }, timeoutMinutes: 30 } })
    expect(host.ok && 'dockerHost' in host.config).toBe(false)
  })
})

describe('Settings → Workers', () => {
  it('shows the project opened last; a bad value is said next to its field and nothing is written', async () => {
    const view = renderWorkers({ 'workers.set': () => saved() })
    const form = await screen.findByRole('form', { name: 'Workers' })
    expect(screen.getByRole('combobox', { name: 'Project' })).toHaveValue('2')
    const backend = within(form).getByRole('radiogroup', { name: 'Backend' })
    expect(within(backend).getByRole('radio', { name: 'Local' })).toBeChecked()
    await userEvent.click(within(backend).getByRole('radio', { name: 'Docker' }))
    expect(within(form).getByRole('textbox', { name: 'Image' })).toHaveValue('ralph-worker:node20')
    const memory = within(form).getByRole('spinbutton', { name: 'Memory (MB)' })
    await userEvent.clear(memory)
    await userEvent.type(memory, '10')
    await userEvent.click(within(form).getByRole('button', { name: 'Save workers' }))
    await waitFor(() => expect(memory).toHaveAttribute('aria-invalid', 'true'))
    expect(memory).toHaveAccessibleDescription(expect.stringMatching(/Too small: expected number to be >=64/))
    expect(view.calls.some((c) => c.name === 'workers.set')).toBe(false)
    // The field's error goes once it changes.
    await userEvent.type(memory, '24')
    expect(memory).not.toHaveAttribute('aria-invalid')
  })

  it('saves the backend, host, limits, retry and ticked secrets (none ticked by default) as "workers"', async () => {
    const view = renderWorkers({
      'workers.set': (input) => saved((input as { workers: WorkersConfig }).workers),
    })
    const form = await screen.findByRole('form', { name: 'Workers' })
    await userEvent.click(within(form).getByRole('radio', { name: 'Docker' }))
    await userEvent.type(within(form).getByRole('textbox', { name: 'Docker host' }), 'ssh://me@build-box')
    const cpus = within(form).getByRole('spinbutton', { name: 'CPUs' })
    await userEvent.clear(cpus)
    await userEvent.type(cpus, '4')
    await userEvent.click(within(form).getByRole('radio', { name: 'Retry on this machine' }))
    const secrets = within(form).getByRole('group', { name: 'Secrets for remote workers' })
    expect(secrets).toHaveAccessibleDescription(expect.stringContaining('leaves this machine'))
    const boxes = within(secrets).getAllByRole('checkbox')
    expect(boxes.map((b) => [b.closest('label')?.textContent, (b as HTMLInputElement).checked])).toEqual([
      ['DB_URL', false],
      ['GITHUB_TOKEN', false],
    ])
    await userEvent.click(within(secrets).getByRole('checkbox', { name: 'GITHUB_TOKEN' }))
    await userEvent.click(within(form).getByRole('button', { name: 'Save workers' }))
    await within(form).findByText('Saved to .ralph/config.json.')
    expect(sentInput(view, 'workers.set')).toEqual({
      projectId: 2,
      workers: {
        ...defaultWorkersConfig,
        backend: 'docker',
        dockerHost: 'ssh://me@build-box',
        cpus: 4,
        retry: 'local',
        remoteSecrets: ['GITHUB_TOKEN'],
      },
    })
  })

  it('labels Kubernetes experimental and offers its context and namespace', async () => {
    renderWorkers({
      'workers.get': () =>
        saved({ ...defaultWorkersConfig, backend: 'kubernetes', kubernetes: { namespace: 'ci' } }),
    })
    const form = await screen.findByRole('form', { name: 'Workers' })
    expect(within(form).getByRole('radio', { name: 'Kubernetes' })).toBeChecked()
    expect(within(form).getByText('Experimental')).toHaveAttribute(
      'title',
      expect.stringContaining('not yet run on a real cluster'),
    )
    expect(within(form).getByRole('textbox', { name: 'Namespace' })).toHaveValue('ci')
    expect(within(form).getByRole('textbox', { name: 'Kubernetes context' })).toHaveValue('')
    expect(within(form).queryByRole('textbox', { name: 'Docker host' })).toBeNull()
  })

  it('tests the form’s backend with progress and Stop, then says the outcome in one sentence', async () => {
    let answer!: (check: WorkersCheck) => void
    const result = (summary: string, stopped: boolean): WorkersCheck => ({
      backend: 'docker',
      ok: false,
      stopped,
      where: null,
      summary,
      advice: stopped ? null : 'To use it, start Docker there.',
      durationMs: 5,
    })
    const view = renderWorkers({
      'workers.get': () => saved({ ...defaultWorkersConfig, backend: 'docker' }),
      'workers.test': () => new Promise<WorkersCheck>((resolve) => (answer = resolve)),
      'workers.stopTest': () => {
        answer(result('The check was stopped.', true))
        return { stopped: true }
      },
    })
    const form = await screen.findByRole('form', { name: 'Workers' })
    await userEvent.click(within(form).getByRole('button', { name: 'Test workers' }))
    const status = await within(form).findByRole('status', { name: 'Workers check' })
    expect(status).toHaveTextContent(
      'Checking: reaching the backend, finding the image, running a no-op job…',
    )
    expect(within(status).getByRole('progressbar', { name: 'Checking the workers' })).toBeInTheDocument()
    expect(sentInput(view, 'workers.test')).toEqual({
      projectId: 2,
      workers: { ...defaultWorkersConfig, backend: 'docker' },
    })
    await userEvent.click(within(status).getByRole('button', { name: 'Stop test' }))
    await waitFor(() =>
      expect(within(form).getByRole('status', { name: 'Workers check' })).toHaveTextContent(
        'The check was stopped.',
      ),
    )
    view.handlers['workers.test'] = () =>
      result(
        'The Docker engine at http://127.0.0.1:9 (DOCKER_HOST) cannot be reached: nothing listens there.',
        false,
      )
    await userEvent.click(within(form).getByRole('button', { name: 'Test workers' }))
    await waitFor(() =>
      expect(within(form).getByRole('status', { name: 'Workers check' })).toHaveTextContent(
        /cannot be reached: nothing listens there\.$/,
      ),
    )
    expect(within(form).getByText('To use it, start Docker there.')).toBeInTheDocument()
  })
})
