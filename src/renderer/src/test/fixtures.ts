import type { AppInfo } from '../../../shared/api/core'
import type { ProjectDetail } from '../../../shared/project'

export const appInfo = (patch: Partial<AppInfo> = {}): AppInfo => ({
  version: '0.1.0',
  host: 'web',
  nativeFolderPicker: false,
  appDataDir: '/d',
  platform: 'linux',
  sandbox: { kind: 'bubblewrap', reason: null },
  ...patch,
})

export const projectDetail = (patch: Partial<ProjectDetail> = {}): ProjectDetail => ({
  id: 1,
  name: 'my-app',
  path: '/home/me/my-app',
  createdAt: 0,
  lastOpenedAt: 0,
  state: {
    exists: true,
    status: 'waiting',
    phase: null,
    taskCount: 0,
    hasPlan: false,
    isGitRepo: false,
    fileCount: 3,
    fileCountCapped: false,
    lastTask: null,
  },
  ...patch,
})

/** The project's one chat conversation, as `chat.conversations` reports it. */
export const chatConversation = {
  id: 1,
  projectId: 1,
  title: 'New conversation',
  createdAt: 0,
  updatedAt: 0,
  messageCount: 0,
  current: true,
}

/** The fake core's chat: one conversation whose history is `messages()` in one page. */
export const chatHandlers = (messages: () => unknown[] = () => []) => ({
  'chat.conversations': () => ({ current: chatConversation, items: [chatConversation] }),
  'chat.history': () => ({ conversationId: 1, messages: messages(), nextBefore: null }),
})
