import { createInterface } from 'node:readline/promises'
import { userEditsAnswers, type UserEditsAnswer, type UserEditsQuestion } from '../../shared/queueBuild'
import { noteFailure, type Logger } from '../workspace'
import { stringFlag, usageError, type FlagValues } from './args'

// `ralph build`'s answer when a lanes build finds the user's edits in a merged task's way (DESIGN.md §18): asked in a
// terminal, else `--on-user-edits` (default stop: the build pauses, nothing is overwritten).

/** `--on-user-edits keep-theirs|take-task|stop`; undefined when not given. */
export function onUserEditsFlag(values: FlagValues): UserEditsAnswer | undefined {
  const raw = stringFlag(values, 'on-user-edits')
  if (raw === undefined) return undefined
  const answer = userEditsAnswers.find((a) => a === raw.trim())
  if (!answer)
    throw usageError('build', `--on-user-edits is one of ${userEditsAnswers.join(', ')}; got "${raw}".`)
  return answer
}

/** The three choices as a terminal offers them: key, words, answer. */
const CHOICES: readonly [string, string, UserEditsAnswer][] = [
  ['k', "Keep my edits (the task's other changes are applied)", 'keep-theirs'],
  ['t', "Take the task's version (yours stays in its safety snapshot)", 'take-task'],
  ['s', 'Stop the build (nothing is written; the next build runs the task again)', 'stop'],
]

/** A terminal's answer: the key, the first word or the answer's name; empty is stop. Null: ask again. */
export function readUserEditsAnswer(raw: string): UserEditsAnswer | null {
  const said = raw.trim().toLowerCase()
  if (said === '') return 'stop'
  for (const [key, words, answer] of CHOICES) {
    const first = words.split(' ')[0]!.toLowerCase()
    if (said === key || said === first || said === answer) return answer
  }
  return null
}

/** The question and its choices, as the terminal shows them. */
export function userEditsPrompt(q: UserEditsQuestion): string {
  return [`\n? ${q.question}`, ...CHOICES.map(([key, words]) => `    ${key}  ${words}`), ''].join('\n')
}

/**
 * Asks in the terminal until it gets one of the three answers. A terminal that goes away (or a stopped build)
 * answers stop, which overwrites nothing.
 */
export async function askUserEditsInTerminal(
  q: UserEditsQuestion,
  signal: AbortSignal,
  logger: Logger,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } = {
    input: process.stdin,
    output: process.stdout,
  },
): Promise<UserEditsAnswer> {
  const rl = createInterface({ input: io.input, output: io.output })
  // Node 20's question never settles when its input ends: the end answers instead.
  const ended = new Promise<null>((resolve) => rl.once('close', () => resolve(null)))
  // A terminal's readline takes Ctrl+C for itself (it would only pause): it stops the build, as everywhere else.
  rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'))
  try {
    io.output.write(userEditsPrompt(q))
    for (;;) {
      const said = await Promise.race([rl.question('  Your choice [k/t/S]: ', { signal }), ended])
      if (said === null) {
        logger.warn(`The terminal closed while the build asked about your edits to ${q.paths.join(', ')}.`)
        return 'stop'
      }
      const answer = readUserEditsAnswer(said)
      if (answer) return answer
      io.output.write('  Type k, t or s (Enter stops the build).\n')
    }
  } catch (err) {
    noteFailure(logger, `the terminal question about your edits to ${q.paths.join(', ')} got no answer`, err)
    return 'stop'
  } finally {
    rl.close()
  }
}
