// The spare lanes of a lanes build (issue #38): made one at a time while the running lanes wait for the model, at
// the integration state of that moment, and taken by the next tasks that start (lanes/laneClaim.ts moves a spare to
// the task's base, writing only the paths that differ), so a task's start does not wait for a checkout of the whole
// project. Spares are lane folders like any other (`ralph lanes` lists them with no task; a killed build's are
// removed by the next build); the build removes those it did not take when it ends.
import { createLane, removeLane, type Lane } from '../lanes'
import { noteFailure, type Logger } from '../workspace'

export interface SpareContext {
  appDataDir: string
  /** The project's id among the lanes (laneProjectId). */
  laneProject: string
  projectDir: string
  logger: Logger
  /** A spare was made (or could not be): the build's loop looks again. */
  nudge(): void
}

export class SpareLanes {
  private readonly ready: Lane[] = []
  private making: { lane: number; done: Promise<void> } | null = null
  private closed = false

  constructor(private readonly c: SpareContext) {}

  /** The lane numbers the spares hold (ready, and the one being made). */
  numbers(): number[] {
    return [...this.ready.map((l) => l.marker.lane), ...(this.making ? [this.making.lane] : [])]
  }

  get count(): number {
    return this.ready.length
  }

  isMaking(): boolean {
    return this.making !== null
  }

  /** Makes a spare lane numbered `lane` at `base` (a commit of the project's store), in the background. */
  make(lane: number, base: string): void {
    const { c } = this
    const done = createLane({
      ...{ appDataDir: c.appDataDir, projectId: c.laneProject, projectDir: c.projectDir },
      ...{ lane, task: null, base, logger: c.logger },
    })
      .then(
        async (made) => {
          if (this.closed) await this.remove(made)
          else this.ready.push(made)
        },
        // A spare is only ahead of time: the task that would have taken it makes its own lane.
        (err: unknown) => noteFailure(c.logger, `Spare lane ${lane} could not be made`, err),
      )
      .finally(() => {
        this.making = null
        c.nudge()
      })
    this.making = { lane, done }
  }

  /** A ready spare for a task that starts, or null. */
  take(): Lane | null {
    return this.ready.shift() ?? null
  }

  /** The build ends: the spare being made is waited for, and every spare left is removed. */
  async removeAll(): Promise<void> {
    this.closed = true
    await this.making?.done
    for (const lane of this.ready.splice(0)) await this.remove(lane)
  }

  private async remove(lane: Lane): Promise<void> {
    try {
      await removeLane(this.c.appDataDir, this.c.laneProject, lane.marker.lane, { measure: false })
    } catch (err) {
      noteFailure(this.c.logger, `Spare lane ${lane.marker.lane} could not be removed`, err)
    }
  }
}
