// The public face of this module: other modules import it from here, never from its files.
export { type FailReason } from './decide'
export { type CommandOutcome } from './gates'
export { postTag, preTag } from './lifecycle'
export { renderTemplate } from './prompts'
export { type LoopConfig, RalphState } from './ralphState'
export { findRulesFiles, rulesSection } from './rulesFiles'
export { runTask, type RunTaskResult } from './runTask'
export { closeStaleQuestions, endWaitingTask, pendingQuestion, type PendingQuestion } from './pendingQuestion'
