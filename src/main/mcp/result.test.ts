import { describe, expect, it } from 'vitest'
import type { CallToolResult } from '@ai-sdk/mcp'
import { solidPng } from '../../../tests/helpers/png'
import { resultImage, resultText } from './result'

const png = solidPng(2, 2)
const answer = (content: unknown[]) => ({ content }) as unknown as CallToolResult

describe("an MCP tool's images", () => {
  it('shows the first image the model can be shown, noting it in the text; others are noted as not shown', () => {
    const result = answer([
      { type: 'text', text: 'Here is the logo:' },
      // Declared as PNG but not one: typed by its bytes, so not shown.
      { type: 'image', data: Buffer.from('not an image').toString('base64'), mimeType: 'image/png' },
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
    ])
    const image = resultImage(result)!
    expect(image.mediaType).toBe('image/png')
    expect(Buffer.from(image.data).equals(png)).toBe(true)
    expect(resultText(result).split('\n')).toEqual([
      'Here is the logo:',
      '[image (image/png): not shown (only a tool answer’s first PNG, JPEG, WebP or GIF image is)]',
      '[image (image/png): it follows as an image where this model can see images]',
      '[image (image/png): not shown (only a tool answer’s first PNG, JPEG, WebP or GIF image is)]',
    ])
  })

  it('has no image when the answer has none', () => {
    expect(resultImage(answer([{ type: 'text', text: 'hi' }]))).toBeNull()
  })
})
