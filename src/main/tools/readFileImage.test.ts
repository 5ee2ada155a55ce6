import { describe, expect, it } from 'vitest'
import { pngOfSize, solidPng } from '../../../tests/helpers/png'
import { executeTool } from './index'
import { eachProject } from './testkit'
import type { RunContext } from './types'

describe('read_file of an image', () => {
  let ctx: RunContext
  const png = solidPng(2, 2)
  eachProject((p) => (ctx = p.ctx), {
    'design/mock.png': png,
    'fake.png': 'not an image at all\n',
    'big.png': pngOfSize(6 * 1024 * 1024),
  })

  it('returns the image itself, typed by its bytes, with a note for the model', async () => {
    const r = await executeTool('read_file', { path: 'design/mock.png' }, ctx)
    expect(r.ok).toBe(true)
    expect(r.output).toMatch(/^design\/mock\.png is an image \(image\/png, \d+ B\)/)
    expect(r.image?.mediaType).toBe('image/png')
    expect(r.image?.name).toBe('design/mock.png')
    expect(Buffer.from(r.image!.data).equals(png)).toBe(true)
  })

  it('reads a text file named .png as text, and does not send an image over 5 MB', async () => {
    const text = await executeTool('read_file', { path: 'fake.png' }, ctx)
    expect(text.image).toBeUndefined()
    expect(text.output).toContain('not an image at all')
    const big = await executeTool('read_file', { path: 'big.png' }, ctx)
    expect(big.image).toBeUndefined()
    expect(big.output).toMatch(/big\.png is a binary file/)
  })
})
