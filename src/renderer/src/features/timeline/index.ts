// The snapshot timeline (issue 13): the side panel's Timeline tab and the rollback dialog the chat reuses.
export { RollbackDialog } from './RollbackDialog'
export { Timeline } from './Timeline'
export { useTimelineUi } from './timelineUi'
export { BaselineStatus } from './BaselineStatus'
export { openTaskFileDiff } from './openTaskFileDiff'
export { UndoRollbackButton, useUndoableRollback } from './UndoRollbackButton'
// Compare full size over any panel (the Queue shows an attempt's diff in it).
export { CompareFull } from './CompareFull'
