import { create } from 'zustand'

interface UserGitUi {
  /** The commit each task got in this session, by `${projectId}:${task}`: the card shows its short hash. */
  committed: Record<string, { hash: string; branch: string }>
  setCommitted(projectId: number, task: number, commit: { hash: string; branch: string }): void
}

export const committedKey = (projectId: number, task: number) => `${projectId}:${task}`

export const useUserGitUi = create<UserGitUi>()((set) => ({
  committed: {},
  setCommitted: (projectId, task, commit) =>
    set((s) => ({ committed: { ...s.committed, [committedKey(projectId, task)]: commit } })),
}))
