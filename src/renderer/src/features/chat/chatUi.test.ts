import { beforeEach, describe, expect, it, vi } from 'vitest'

const KEY = 'ralph.chat.drafts'

describe('the composer drafts', () => {
  beforeEach(() => {
    localStorage.clear()
    vi.resetModules()
  })

  it('are kept per project in localStorage and read back by a new page; a sent (emptied) draft leaves nothing', async () => {
    const { useChatUi } = await import('./chatUi')
    useChatUi.getState().setDraft(4, 'Add a contact page')
    useChatUi.getState().setDraft(7, 'Fix the footer')
    expect(JSON.parse(localStorage.getItem(KEY)!)).toEqual({ 4: 'Add a contact page', 7: 'Fix the footer' })
    useChatUi.getState().setDraft(7, '')
    expect(JSON.parse(localStorage.getItem(KEY)!)).toEqual({ 4: 'Add a contact page' })

    vi.resetModules()
    const fresh = await import('./chatUi')
    expect(fresh.useChatUi.getState().draft).toEqual({ 4: 'Add a contact page' })
  })

  it('start empty when what is stored cannot be read', async () => {
    localStorage.setItem(KEY, '{not json')
    const { useChatUi } = await import('./chatUi')
    expect(useChatUi.getState().draft).toEqual({})
    localStorage.setItem(KEY, JSON.stringify({ 3: 42, 5: 'ok' }))
    vi.resetModules()
    expect((await import('./chatUi')).useChatUi.getState().draft).toEqual({ 5: 'ok' })
  })
})
