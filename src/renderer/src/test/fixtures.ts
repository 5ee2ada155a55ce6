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
  },
  ...patch,
})
