import { describe, expect, it } from 'vitest'
import { kindOfTag, snapshotTags, taskOfTag } from './snapshotTags'

describe('taskOfTag', () => {
  it('reads the task of a task-N-pre or task-N-post tag, a taken-name suffix included', () => {
    expect(taskOfTag(snapshotTags.taskPre(3))).toBe(3)
    expect(taskOfTag(snapshotTags.taskPost(12))).toBe(12)
    expect(taskOfTag('task-4-pre-2')).toBe(4)
    expect(kindOfTag('task-4-pre-2')).toBe('task-pre')
  })

  it('is null for any other tag', () => {
    expect(taskOfTag(snapshotTags.stallRecovery(3))).toBeNull()
    expect(taskOfTag(snapshotTags.manual(1_700_000_000_000))).toBeNull()
    expect(taskOfTag('working')).toBeNull()
  })
})
