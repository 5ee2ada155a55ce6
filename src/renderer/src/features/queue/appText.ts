import type { QueueView } from '../../../../shared/queue'
import type { BuildProgress } from '../../../../shared/queueBuild'
import { formatWhen } from '../../../../shared/format'

/**
 * The core's messages are shared with the CLI, whose users type commands: "Accept it with `ralph task accept
 * t-3s71` …, then run `ralph build` again". In the app the same sentence says what to click, and a task is called
 * by its name. The CLI's text stays as it is; this rewrites it for the panel only.
 */

const ID = String.raw`t-[A-Za-z0-9_.-]+`
const CLICK_DECIDE = 'Accept or reject it with its buttons in the queue, then click Build again.'

/** Whole sentences with a CLI instruction, and what the app says instead. */
const SENTENCES: [RegExp, string][] = [
  [
    new RegExp(
      String.raw`Accept it with \`ralph task accept ${ID}\` or reject it with \`ralph task reject "reason" --id ${ID}\`, then run \`ralph build\` again\.`,
      'g',
    ),
    CLICK_DECIDE,
  ],
  [
    new RegExp(
      String.raw`Accept it \(\`ralph task accept ${ID}\`\) or reject it \(\`ralph task reject "reason" --id ${ID}\`\), then build again\.`,
      'g',
    ),
    CLICK_DECIDE,
  ],
  [
    new RegExp(String.raw`: \`ralph task accept ${ID}\`, then \`ralph build\` again\.`, 'g'),
    ': click Accept on it in the queue, then Build again.',
  ],
  [
    new RegExp(
      String.raw`Add it to the task's notes \(\`ralph task edit ${ID} --notes "…"\`\) and run \`ralph build\` again\.`,
      'g',
    ),
    'Add it to the task’s notes (Edit on the task), then click Build again.',
  ],
  [
    new RegExp(
      String.raw`Retry it with \`ralph build --retry ${ID}\` \(or "Retry" in the Queue panel\)`,
      'g',
    ),
    'Retry it with its Retry button in the queue',
  ],
  [
    /accept \(`ralph task accept ID`\) or reject \(`ralph task reject "reason" --id ID`\) first, then build again\./g,
    'accept or reject first (the buttons on each done task), then click Build again.',
  ],
  [
    /Turn them into tasks \(`ralph task add`\) or close them \(`ralph issue done ID`\)\./g,
    'Turn them into tasks (Add task) or close them (Close issue).',
  ],
  [
    /set a spec \(`ralph set-spec FILE`\) and add tasks \(`ralph task add "NAME" --accept "DET: …"`\)\./g,
    'add a first task (Add task, which also writes its spec).',
  ],
  [/No spec is set: run `ralph set-spec FILE`, then add tasks\./g, 'No spec is set: add a first task.'],
  [/Edit their deps \(ralph task edit\) to break it\./g, 'Edit their dependencies (Edit) to break it.'],
  [/`ralph task accept` or `ralph task reject "reason"` decides it\./g, 'Accept or Reject decides it.'],
  // An alternative that is only a command: "Name the spec file (…), or run `ralph set-spec FILE`."
  [/,? or run `ralph [^`]*`\./g, '.'],
  // A usage example after a colon, not in backticks: "A task needs a name: ralph task add "what to do"."
  [/: ralph [a-z-]+(?: [a-z-]+)* "[^"]*"\./g, '.'],
]

/** Parenthesised command hints that a sentence reads fine without: " (`ralph task done ID` first)". */
const ASIDE = /\s*\((?:run |with |see )?`ralph [^`]*`[^()]*\)/g
/** A sentence that is only a CLI instruction, dropped when what is left still says something. */
const CLI_SENTENCE = /(?:^|(?<=[.!?]\s))[^.!?]*`ralph [^`]*`[^.!?]*[.!?]\s*/g

/** An ISO time as the core writes it ("2026-11-29T10:41:07.123Z"). */
const ISO_TIME = /\b\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z\b/g

/** ISO times in the core's text as the local date and time people read ("29 Nov 2026, 10:41"). */
export const readableTimes = (text: string): string =>
  text.replace(ISO_TIME, (iso) => {
    const at = Date.parse(iso)
    return Number.isNaN(at) ? iso : formatWhen(at)
  })

export function withoutCliHints(text: string): string {
  let out = readableTimes(text)
  for (const [pattern, replacement] of SENTENCES) out = out.replace(pattern, replacement)
  out = out.replace(ASIDE, '')
  const dropped = out.replace(CLI_SENTENCE, '').trim()
  return dropped === '' ? out.replace(/`ralph ([^`]*)`/g, '$1') : dropped
}

/** Task ids as names ("“Write a.txt”"), for the ids the queue or the build knows. */
export function withNames(text: string, names: ReadonlyMap<string, string>): string {
  if (names.size === 0) return text
  // The build's log says `t-1a2b "Flavor grid"`: the name once is enough.
  const once = text.replace(/\b(t-[A-Za-z0-9_-]+) "([^"]*)"/g, (whole, id: string, name: string) =>
    names.get(id) === name ? id : whole,
  )
  return once.replace(/\bt-[A-Za-z0-9_-]+\b/g, (id) => {
    const name = names.get(id)
    return name ? `“${name}”` : id
  })
}

/** A core message as the panel shows it: no CLI instructions, tasks by name. */
export const forTheApp = (text: string, names: ReadonlyMap<string, string>): string =>
  withNames(withoutCliHints(text), names)

/** Every task name the panel knows: the queue's tasks, and those the build touched (accepted ones leave the queue). */
export function taskNames(
  state: QueueView | undefined,
  progress: BuildProgress | undefined,
): Map<string, string> {
  const names = new Map<string, string>()
  for (const t of progress?.tasks ?? []) names.set(t.taskId, t.name)
  if (progress?.current) names.set(progress.current.taskId, progress.current.name)
  for (const t of state?.tasks ?? []) names.set(t.id, t.name)
  return names
}
