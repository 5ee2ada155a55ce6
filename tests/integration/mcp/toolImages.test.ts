// Issue 27: an image an MCP tool returns reaches the model as an image part, as read_file's do. `ralph run` in a
// child process, the real server-everything from npm started from `.mcp.json` inside the sandbox, and the
// Anthropic and OpenAI wire-format fakes recording what the product's AI SDK clients sent.
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli'
import { approveWithCli } from '../../helpers/mcpApproval'
import { makeTempDir } from '../../helpers/tempDir'
import { scratchHome } from '../../../src/main/sandbox/home'
import { removeDir } from '../../../src/main/tools/testkit'
import { parsed, say, tools } from '../loop/harness'
import { modelCalls, PROVIDERS, providerEnv, useWireProject } from '../providers/wire'
import { wireImages } from '../providers/wireImages'
import { everythingServer, writeMcpJson } from './fixtures'

const TOOL = 'mcp__everything__get-tiny-image'
const CASES = PROVIDERS.filter((p) => p.provider === 'anthropic' || p.provider === 'openai')

describe.each(CASES)("an MCP tool's image through $provider", { timeout: 180_000 }, (c) => {
  // The project's sandbox home (server-everything's npm cache) goes with it.
  const w = useWireProject(c, 'ralph-mcp-image-', async (dir) => removeDir(await scratchHome(dir)))

  it('is the next request’s image part, after the tool result that says it follows', async () => {
    writeMcpJson(w.project.path, { everything: everythingServer })
    await approveWithCli(w.project.path, w.env, ['everything'])
    w.server.enqueue(
      parsed({ type: 'bugfix', title: 'Look at the logo' }),
      tools([TOOL, {}]),
      tools(
        ['write_file', { path: 'logo.txt', content: 'seen\n' }],
        ['mark_complete', { summary: 'Looked at the logo.' }],
      ),
    )
    const r = await runCli(['run', 'look at the logo', '--json', '--project', w.project.path], {
      env: w.env,
    })
    expect(r.code, r.stderr + r.stdout.slice(-2000)).toBe(0)
    const calls = modelCalls(w.server, c)
    expect(calls.length).toBe(3)
    // Before the call no image; after it, the server's PNG as this format's image part.
    expect(wireImages(c.provider, calls[1]!.body)).toEqual([])
    const images = wireImages(c.provider, calls[2]!.body)
    expect(images).toHaveLength(1)
    expect(images[0]!.mediaType).toBe('image/png')
    const meta = await sharp(Buffer.from(images[0]!.base64, 'base64')).metadata()
    expect(meta.format).toBe('png')
    const body = JSON.stringify(calls[2]!.body)
    expect(body).toContain('[image (image/png): it follows as an image where this model can see images]')
    expect(body).toContain(`The image(s) the tool(s) returned: ${TOOL} image 1.`)
  })
})

describe("an MCP tool's image and a model that cannot see images", { timeout: 180_000 }, () => {
  it('is a text note instead', async () => {
    const c = PROVIDERS.find((p) => p.provider === 'openai')!
    const server = await c.start()
    server.fallback = say('Nothing more.')
    const project = makeTempDir('ralph-mcp-image-')
    const home = makeTempDir('ralph-home-')
    try {
      writeMcpJson(project.path, { everything: everythingServer })
      server.enqueue(
        parsed({ type: 'bugfix', title: 'Look at the logo' }),
        tools([TOOL, {}]),
        tools(
          ['write_file', { path: 'logo.txt', content: 'not seen\n' }],
          ['mark_complete', { summary: 'Done.' }],
        ),
      )
      // o3-mini: the catalog lists its input as text only.
      const env = { ...providerEnv(c, server, home.path), RALPH_MODEL: 'o3-mini' }
      await approveWithCli(project.path, env, ['everything'])
      const r = await runCli(['run', 'look at the logo', '--json', '--project', project.path], { env })
      expect(r.code, r.stderr + r.stdout.slice(-2000)).toBe(0)
      const calls = modelCalls(server, c)
      expect(calls.every((call) => wireImages('openai', call.body).length === 0)).toBe(true)
      expect(JSON.stringify(calls[2]!.body)).toContain(
        `The tool(s) returned image(s): ${TOOL} image 1; this model cannot see images, so they are not shown.`,
      )
    } finally {
      await server.close()
      await removeDir(await scratchHome(project.path))
      project.cleanup()
      home.cleanup()
    }
  })
})
