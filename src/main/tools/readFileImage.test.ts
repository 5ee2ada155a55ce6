import sharp from 'sharp'
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
    // A real PNG cut in half: it starts as one.
    'cut.png': solidPng(64, 64).subarray(0, 60),
  })

  it('returns the image itself, typed by its bytes, with a note for the model', async () => {
    const r = await executeTool('read_file', { path: 'design/mock.png' }, ctx)
    expect(r.ok).toBe(true)
    expect(r.output).toMatch(/^design\/mock\.png is an image \(image\/png, \d+ B\)/)
    expect(r.image?.mediaType).toBe('image/png')
    expect(r.image?.name).toBe('design/mock.png')
    expect(Buffer.from(r.image!.data).equals(png)).toBe(true)
  })

  it("reads a text file named .png as text, and sends a large image scaled to every provider's limits", async () => {
    const text = await executeTool('read_file', { path: 'fake.png' }, ctx)
    expect(text.image).toBeUndefined()
    expect(text.output).toContain('not an image at all')
    // 6 MB of PNG (padded): sent as a small PNG, the file left as it is.
    const big = await executeTool('read_file', { path: 'big.png' }, ctx)
    expect(big.output).toMatch(
      /big\.png is an image \(image\/png, 6\.0 MB\) \(sent scaled down to \d+ B image\/png/,
    )
    expect(big.image!.data.length).toBeLessThan(1024)
  })

  it('scales a 4000×3000 screenshot down, keeping its aspect ratio', async () => {
    const shot = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer()
    await sharp(shot).toFile(`${ctx.projectDir}/shot.png`)
    const r = await executeTool('read_file', { path: 'shot.png' }, ctx)
    const m = await sharp(r.image!.data).metadata()
    expect([m.width, m.height, m.format]).toEqual([1238, 928, 'png'])
  })

  it('says so, without an image, when an image file is damaged', async () => {
    const r = await executeTool('read_file', { path: 'cut.png' }, ctx)
    expect(r.ok).toBe(true)
    expect(r.image).toBeUndefined()
    expect(r.output).toBe(
      'cut.png starts as an image/png image but could not be decoded (the file is damaged or cut short); its ' +
        'content is not shown.',
    )
  })
})
