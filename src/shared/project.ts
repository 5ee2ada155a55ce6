import { z } from 'zod'

/** `interrupted`: the process running the task died; crash recovery sets it (issue 11). */
export const loopStatuses = ['idle', 'running', 'complete', 'failed', 'waiting', 'interrupted'] as const

export const projectSchema = z.object({
  id: z.number().int().positive(),
  name: z.string(),
  path: z.string(),
  createdAt: z.number(),
  lastOpenedAt: z.number(),
})
export type Project = z.infer<typeof projectSchema>

/** What the project page shows; read from the project's `.ralph/` folder and its git state. */
export const projectStateSchema = z.object({
  exists: z.boolean(),
  status: z.enum(loopStatuses),
  phase: z.enum(['plan', 'build']).nullable(),
  taskCount: z.number().int(),
  hasPlan: z.boolean(),
  isGitRepo: z.boolean(),
  fileCount: z.number().int(),
  fileCountCapped: z.boolean(),
  /**
   * The project's newest task run as its row says it ended (the row every task card reads: Stopped where
   * `.ralph/status` says failed); null before the first task. The header's status word comes from here.
   */
  lastTask: z
    .object({
      task: z.number().int(),
      title: z.string().nullable(),
      /** A run row's status: running, complete, failed, stopped, waiting or interrupted. */
      status: z.string(),
    })
    .nullable(),
})
export type ProjectState = z.infer<typeof projectStateSchema>

export const projectDetailSchema = projectSchema.extend({ state: projectStateSchema })
export type ProjectDetail = z.infer<typeof projectDetailSchema>

export const projectPathSchema = z
  .string()
  .trim()
  .min(1, 'Enter the path of a folder, e.g. /home/you/my-app.')
