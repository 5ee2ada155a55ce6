import { SnapshotEngine } from '../../snapshots'
import { openProject } from '../../workspace/openProject'
import { HOME_LIKE_FLAG } from '../../workspace/projectFolder'
import { expectPositionals } from '../args'
import { openCliServices } from '../openCore'
import { writeJson } from '../output'
import type { CliCommand } from '../types'

export const initCommand: CliCommand = {
  name: 'init',
  usage: `Usage: ralph init [--project DIR] [${HOME_LIKE_FLAG}] [--json]

Creates DIR/.ralph/ with Ralph's state files and registers the folder as a project.
Safe to run again: existing files are never overwritten.

The file system's root, system folders and your home folder itself are refused. A folder that looks like a
home folder (.ssh, .bashrc, Documents …) is refused (exit 2) until you confirm it with ${HOME_LIKE_FLAG}.`,
  options: { 'yes-home-like': { type: 'boolean' } },
  async run(ctx) {
    expectPositionals(ctx.positionals, 0, 0, 'init', 'init')
    const services = openCliServices(ctx.env, 'init')
    let opened
    try {
      opened = await openProject(services.projects, ctx.projectDir, 'the command line (ralph init)', {
        confirmHomeLike: ctx.values['yes-home-like'] === true,
        confirmHint: `pass ${HOME_LIKE_FLAG} to confirm`,
      })
    } finally {
      services.close()
    }
    const { project, init: result } = opened
    const dir = project.path
    // Creates the shadow store (or checks and repairs an existing one); never touches the project's own .git.
    const { repairs } = await new SnapshotEngine({ projectDir: dir, logger: ctx.logger }).init()
    if (ctx.json)
      writeJson(ctx.stdout, {
        ok: true,
        projectId: project.id,
        project: dir,
        ...result,
        snapshotStore: '.ralph/snapshots.git',
        repairs,
      })
    else if (result.createdFiles.length === 0)
      ctx.stdout.write(`Already initialised: ${result.ralphDir} (nothing changed)\n`)
    else {
      ctx.stdout.write(`${result.created ? 'Created' : 'Completed'} ${result.ralphDir}\n`)
      ctx.stdout.write(`  new files: ${result.createdFiles.join(', ')}\n`)
      ctx.stdout.write(`  snapshot store: ${result.ralphDir}/snapshots.git\n`)
    }
    if (!ctx.json) for (const repair of repairs) ctx.stdout.write(`  repaired: ${repair}\n`)
    return 0
  },
}
