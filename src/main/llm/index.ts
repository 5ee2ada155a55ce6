// The public face of this module: other modules import it from here, never from its files.
export { catalogSeesImages } from './catalogVision'
export { ollamaModelFacts } from './ollamaContext'
export { type ContextWindowOverrides, MIN_CONTEXT_WINDOW, resolveContextWindow } from './contextWindows'
export { type ModelConfig } from './createModel'
export {
  callJson,
  type CallBudget,
  type JsonCallResult,
  type RetryPolicy,
  runModelTurn,
  toolResultMessage,
  type TurnRequest,
  type TurnResult,
  type TurnTool,
  type TurnUsage,
} from './modelTurn'
export { type BilledUsage, estimateCost, type PriceOverrides, priceFor } from './pricing'
export { type PromptCacheHints } from './promptCache'
export { ContextOverflowError } from './providerErrors'
export { sleep } from './retry'
export { safeRecord, usageEntry, type UsageEntry, type UsageSink } from './usage'
export { UsageLimitError } from './usageLimit'
