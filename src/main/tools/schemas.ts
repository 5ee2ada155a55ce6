// Input schemas of the model's tools (DESIGN.md §7). The descriptions become the JSON schema the model sees,
// so they say how to use each tool and argument.
import { z } from 'zod'
import { queueSchema } from './queueTool'
import { COMMAND_MAX_TIMEOUT_MS } from './runCommand'
import type { ToolName } from './types'

const path = (what: string) =>
  z
    .string()
    .describe(
      `${what} Relative to the project root, forward slashes (e.g. "src/app.ts"). Absolute paths, ".." out of the ` +
        'project, .git folders and .ralph/snapshots.git are refused.',
    )

export const toolSchemas = {
  read_file: z.strictObject({
    path: path('File to read.'),
    offset: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('1-based line number to start from (default 1). Use it to continue a truncated read.'),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Maximum number of lines to return (default and maximum 2000).'),
  }),
  write_file: z.strictObject({
    path: path('File to create or overwrite. Missing folders are created.'),
    content: z.string().describe('The complete new content of the file (not a diff, no line numbers).'),
  }),
  edit_file: z.strictObject({
    path: path('Existing file to edit.'),
    old_string: z
      .string()
      .describe(
        'Exact text to replace, copied from the file including indentation and line breaks, without the line ' +
          'numbers read_file shows. It must occur exactly once: include enough surrounding lines to make it unique.',
      ),
    new_string: z.string().describe('Text to put in its place (may be empty to delete old_string).'),
  }),
  list_files: z.strictObject({
    path: path('Folder to list (default: the project root).').optional(),
    depth: z
      .number()
      .int()
      .min(1)
      .max(20)
      .optional()
      .describe('How many folder levels to expand (default 3). Deeper folders show their entry count.'),
  }),
  grep: z.strictObject({
    pattern: z
      .string()
      .describe(
        'JavaScript regular expression matched against each line (e.g. "function \\\\w+Handler"). Escape ' +
          'special characters to match them literally. Start with "(?i)" for a case-insensitive search.',
      ),
    path: path('File or folder to search (default: the whole project).').optional(),
  }),
  run_command: z.strictObject({
    command: z
      .string()
      .describe(
        'Shell command (/bin/sh -c) run in the project root, without a terminal or input. Use it to build, test, ' +
          'lint, install dependencies or run scripts. It must finish on its own: never start servers or watchers ' +
          'that keep running (use "run" modes, e.g. "npx vitest run"); background processes are stopped when ' +
          'the command ends. It runs in a sandbox: the project is writable; .git, .ralph/ (except plan.tsx, ' +
          'summary.md and status.txt: write those with > or write_file, not sed -i) and the rest of the system ' +
          'are read-only; HOME is a scratch folder; no API keys or other secrets are in its environment.',
      ),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        `Kill the command (and everything it started) after this many milliseconds. Default from the project ` +
          `settings (usually 120000); at most ${COMMAND_MAX_TIMEOUT_MS}.`,
      ),
  }),
  snapshot: z.strictObject({
    action: z
      .enum(['save', 'list', 'diff', 'status', 'rollback'])
      .describe(
        'save: checkpoint the whole project now (a manual-<time> tag). list: the 20 most recent snapshots. ' +
          'diff: which files changed since a snapshot (file level). status: current position and pending changes. ' +
          'rollback: restore the project files to a snapshot (a safety snapshot is taken first; the loop state ' +
          'in .ralph/ is kept).',
      ),
    message: z.string().optional().describe('For save: a short note on what this checkpoint holds.'),
    target: z
      .string()
      .optional()
      .describe(
        'Snapshot tag, e.g. "task-3-pre" or "manual-1700000000". Required for rollback; for diff it defaults to ' +
          "the current task's pre-task snapshot.",
      ),
  }),
  plan: z.strictObject({
    action: z
      .enum(['show', 'validate', 'diff'])
      .describe(
        'show: the plan tree of .ralph/plan.tsx with its change markers. validate: check the plan against the ' +
          'plan language rules (failures must be fixed). diff: what changed in the plan since this task started, ' +
          'and the scope gates the harness will run on your work (e.g. items converted instead of added).',
      ),
  }),
  queue: queueSchema,
  mark_complete: z.strictObject({
    summary: z
      .string()
      .describe(
        'What you did for this task: the changes made, files touched, and what the user can now do. Written to ' +
          '.ralph/summary.md.',
      ),
    evidence: z
      .string()
      .optional()
      .describe('How you verified it: commands run and their results (tests passing, build output).'),
  }),
} satisfies Record<ToolName, z.ZodObject>

export const toolDescriptions: Record<ToolName, string> = {
  read_file:
    'Read a text file of the project. Lines come numbered ("    12\\tcode"); long files are cut at 2000 lines ' +
    'with a note giving the offset to continue from. Binary files are not shown.',
  write_file:
    'Create a file or replace its whole content, creating folders as needed. For small changes to an existing ' +
    'file prefer edit_file. Harness files (.ralph/task.md, feedback.md, config.json, phase.txt …) are read-only.',
  edit_file:
    'Replace one exact, unique occurrence of old_string with new_string in an existing file. Fails (changing ' +
    'nothing) if old_string is missing or occurs more than once; read the file first and copy the text exactly.',
  list_files:
    "Show the project's files and folders as a tree, without .git, dependencies and build output " +
    '(node_modules, dist …) or what .gitignore ignores. Large trees are cut at 500 entries.',
  grep:
    'Search file contents with a regular expression. Returns "path:line: text" for each matching line (at most ' +
    '200), skipping binary files, dependencies and ignored files.',
  run_command:
    'Run a shell command in the project root with a timeout and return its exit code and output (long output ' +
    'keeps its beginning and end). Use it to install, build, test and lint.',
  snapshot:
    'Project snapshots (checkpoints): save one, list them, see which files changed since one, see the current ' +
    'status, or roll the project back to one.',
  plan:
    'Work with the plan (.ralph/plan.tsx): show its tree, validate it against the plan language rules, or diff ' +
    'it against the start of this task together with the scope gates.',
  queue:
    'The work queue (.ralph/plan.jsonl): read the next task or the whole queue, record an issue you found ' +
    'outside your task, or add a task while a spec is being planned. It cannot mark work done, accept, reject ' +
    "or cancel anything: only the harness's verification and the user decide that.",
  mark_complete:
    'Declare the task done, only once the work is implemented and verified: writes .ralph/summary.md and sets ' +
    '.ralph/status.txt to complete. The harness then runs the quality gates; failures come back in ' +
    '.ralph/feedback.md.',
}
