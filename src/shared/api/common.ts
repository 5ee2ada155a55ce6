import { z } from 'zod'

/** The shapes every area of the contract shares: a project's id, and the input of a call that needs only it. */
export const projectId = z.number().int().positive()
export const projectOnly = z.object({ projectId }).strict()
