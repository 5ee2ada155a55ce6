import { basename } from 'node:path'
import { SnapshotEngine } from '../../snapshots'
import { initRalphDir } from '../../workspace/initRalphDir'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { openCliServices } from '../openCore'
import { writeJson } from '../output'
import type { CliCommand } from '../types'

export const initCommand: CliCommand = {
  name: 'init',
  usage: `Usage: ralph init [--project DIR] [--json]

Creates DIR/.ralph/ with Ralph's state files and registers the folder as a project.
Safe to run again: existing files are never overwritten.`,
  async run(ctx) {
    if (ctx.positionals.length) {
      ctx.stderr.write(`ralph init: unexpected argument "${ctx.positionals[0]}".\n${this.usage}\n`)
      return 2
    }
    const dir = checkProjectFolder(ctx.projectDir)
    const result = await initRalphDir(dir, { openedFrom: 'the command line (ralph init)' })
    // Creates the shadow store (or checks and repairs an existing one); never touches the project's own .git.
    const { repairs } = await new SnapshotEngine({ projectDir: dir }).open()
    const services = openCliServices(ctx.env, 'init')
    let projectId: number
    try {
      projectId = services.projects.upsert(dir, basename(dir) || dir, Date.now()).id
    } finally {
      services.close()
    }
    if (ctx.json)
      writeJson(ctx.stdout, {
        ok: true,
        projectId,
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
