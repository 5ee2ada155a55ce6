import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { chatHandlers } from '../../test/fixtures'
import { renderInViewport, sentInput } from '../../test/render'
import { useRuns } from '../../app/runStore'
import { Chat } from './Chat'
import { useChatUi } from './chatUi'
import { useCostCaps } from './costCap'

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3])
const png = (name: string) => new File([PNG], name, { type: 'image/png' })

function renderChat(sees = true) {
  return renderInViewport(<Chat projectId={1} />, {
    ...chatHandlers(),
    'tasks.running': () => ({ running: false }),
    'tasks.modelSeesImages': () => ({ model: sees ? 'gpt-4o' : 'o3-mini', sees }),
    'chat.send': () => ({ conversationId: 1, messageId: 99, queued: false }),
  })
}

const chooser = () => document.querySelector<HTMLInputElement>('[data-testid="attach-images-input"]')!

function pasteFiles(target: Element, files: File[]) {
  const event = new Event('paste', { bubbles: true, cancelable: true })
  Object.defineProperty(event, 'clipboardData', { value: { files, types: ['Files'] } })
  fireEvent(target, event)
}

describe('the composer’s images', () => {
  beforeEach(() => {
    localStorage.clear()
    useRuns.setState({ runs: {} })
    useChatUi.setState({ mode: {}, draft: {}, viewing: {} })
    useCostCaps.setState({ text: {} })
  })

  it('takes images from the chooser and by paste, shows them removable, and sends them with the task', async () => {
    const view = renderChat()
    const box = await screen.findByRole('textbox', { name: 'Message' })
    await userEvent.upload(chooser(), [png('mockup.png')])
    const list = await screen.findByRole('list', { name: 'Images to send' })
    expect(within(list).getByRole('img', { name: 'mockup.png' })).toHaveAttribute(
      'src',
      expect.stringMatching(/^data:image\/png;base64,/),
    )
    pasteFiles(box, [png('')])
    await screen.findByRole('img', { name: 'pasted-image.png' })
    await userEvent.click(screen.getByRole('button', { name: 'Remove mockup.png' }))
    expect(screen.queryByRole('img', { name: 'mockup.png' })).toBeNull()

    await userEvent.type(box, 'make it look like this{Control>}{Enter}{/Control}')
    await waitFor(() =>
      expect(sentInput(view, 'chat.send')).toEqual({
        projectId: 1,
        mode: 'task',
        text: 'make it look like this',
        attachments: [
          { name: 'pasted-image.png', mediaType: 'image/png', base64: btoa(String.fromCharCode(...PNG)) },
        ],
      }),
    )
    // Sent: the composer is empty again.
    await waitFor(() => expect(screen.queryByRole('list', { name: 'Images to send' })).toBeNull())
    expect(screen.queryByTestId('composer-images-blind')).toBeNull()
  })

  it('says what is wrong with a file of another kind, one over 5 MB, and a ninth image', async () => {
    renderChat()
    await screen.findByRole('textbox', { name: 'Message' })
    await userEvent.upload(chooser(), [new File(['hello'], 'notes.txt', { type: 'text/plain' })], {
      applyAccept: false,
    })
    expect(await screen.findByTestId('composer-images-error')).toHaveTextContent(
      'notes.txt is not a PNG, JPEG, WebP or GIF image',
    )
    const big = new File([new Uint8Array(5 * 1024 * 1024 + 1)], 'huge.png', { type: 'image/png' })
    await userEvent.upload(chooser(), [big])
    expect(await screen.findByTestId('composer-images-error')).toHaveTextContent(
      'huge.png is 5.0 MB; an image may be at most 5 MB',
    )
    expect(screen.queryByRole('list', { name: 'Images to send' })).toBeNull()
    await userEvent.upload(
      chooser(),
      Array.from({ length: 9 }, (_, i) => png(`shot-${i + 1}.png`)),
    )
    await waitFor(() => expect(screen.getAllByRole('button', { name: /^Remove shot-/ })).toHaveLength(8))
    expect(screen.getByTestId('composer-images-error')).toHaveTextContent(
      'Attach at most 8 images to a message: shot-9.png was left out.',
    )
    expect(screen.getByRole('button', { name: 'Attach images' })).toBeDisabled()
  })

  it('warns before images go to a model that cannot see them, and still sends', async () => {
    const view = renderChat(false)
    const box = await screen.findByRole('textbox', { name: 'Message' })
    await userEvent.upload(chooser(), [png('mockup.png')])
    expect(await screen.findByTestId('composer-images-blind')).toHaveTextContent(
      'This model cannot see images: Ralph will tell it their names instead',
    )
    // A dropped image joins it.
    const drop = new Event('drop', { bubbles: true, cancelable: true })
    Object.defineProperty(drop, 'dataTransfer', { value: { files: [png('dropped.png')], types: ['Files'] } })
    fireEvent(box, drop)
    await screen.findByRole('img', { name: 'dropped.png' })
    await userEvent.type(box, 'go{Control>}{Enter}{/Control}')
    await waitFor(() =>
      expect(sentInput(view, 'chat.send')).toMatchObject({
        attachments: [{ name: 'mockup.png' }, { name: 'dropped.png' }],
      }),
    )
  })
})
