import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { PriceUpdatesState } from '../../../../shared/api/prices'
import { renderWithProviders, sentInput } from '../../test/render'
import { PricesSetting } from './PricesSetting'

const URL = 'https://raw.githubusercontent.com/pydantic/genai-prices/main/prices/new_data/v2/data.json'

describe('Update prices from the internet', () => {
  it('is off by default, says what it fetches and when, and shows the list in use once on', async () => {
    let state: PriceUpdatesState = { enabled: false, url: URL, fetchedAt: null, models: null, error: null }
    const view = renderWithProviders(<PricesSetting />, {
      'prices.updates': () => state,
      'prices.setUpdates': () => {
        state = { ...state, enabled: true, fetchedAt: Date.UTC(2026, 10, 29, 10), models: 412 }
        return state
      },
    })
    const box = await screen.findByRole('checkbox', { name: 'Update prices from the internet' })
    expect(box).not.toBeChecked()
    expect(screen.getByText(URL)).toBeInTheDocument()
    expect(screen.getByRole('region', { name: 'Prices' })).toHaveTextContent(
      'when you turn this on, then once a day when Ralph starts, and keeps it in Ralph’s data folder',
    )
    expect(screen.queryByTestId('prices-status')).toBeNull()

    await userEvent.click(box)
    await waitFor(() => expect(sentInput(view, 'prices.setUpdates')).toEqual({ enabled: true }))
    expect(await screen.findByTestId('prices-status')).toHaveTextContent('In use: the list downloaded')
    expect(screen.getByTestId('prices-status')).toHaveTextContent('412 models')
    expect(box).toBeChecked()
  })

  it('says why a download failed', async () => {
    renderWithProviders(<PricesSetting />, {
      'prices.updates': () => ({
        enabled: true,
        url: URL,
        fetchedAt: null,
        models: null,
        error: `Could not download prices from ${URL}: fetch failed. The prices stay as they were.`,
      }),
    })
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not download prices')
    expect(screen.getByTestId('prices-status')).toHaveTextContent(
      'Not downloaded yet: the bundled list is in use.',
    )
  })
})
