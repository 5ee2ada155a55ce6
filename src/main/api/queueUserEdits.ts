import type { UserEditsAnswer } from '../../shared/queueBuild'
import type { BuildInput } from '../build'

/**
 * The panel's lanes builds waiting for the user's answer about their edits in a merged task's way (DESIGN.md §18):
 * `build.user-edits` shows the question, `queue.answerUserEdits` answers it. One question per project at a time;
 * a build stopped while it asks hears stop (nothing overwritten).
 */
export class UserEditsAnswers {
  private readonly waiting = new Map<number, (answer: UserEditsAnswer) => void>()

  /** BuildInput.answerUserEdits for one project's build. */
  asker(projectId: number): NonNullable<BuildInput['answerUserEdits']> {
    return (_question, signal) =>
      new Promise<UserEditsAnswer>((resolve) => {
        const done = (answer: UserEditsAnswer) => {
          if (this.waiting.get(projectId) === done) this.waiting.delete(projectId)
          signal.removeEventListener('abort', onAbort)
          resolve(answer)
        }
        const onAbort = () => done('stop')
        if (signal.aborted) return done('stop')
        signal.addEventListener('abort', onAbort, { once: true })
        this.waiting.set(projectId, done)
      })
  }

  /** Answers the project's waiting question; false when its build asks none. */
  answer(projectId: number, answer: UserEditsAnswer): boolean {
    const waiting = this.waiting.get(projectId)
    waiting?.(answer)
    return waiting !== undefined
  }
}
