// Public API of the plan language (PLAN_LANGUAGE.md).
export * from './types'
export { parsePlan, evaluate, PLAN_MODULE } from './parse'
export { parseMarker, extractCount, formatMarker, commentBody } from './markers'
export { validatePlan, failureRules, warningRules } from './validate'
export type { RuleId, ValidateOptions, ValidationResult } from './validate'
export { components, componentNames, commonGumdrops, endpointPatterns } from './components'
export { nearest, didYouMean, editDistance } from './suggest'
export { listSections, markersFor, walk, prop, stringProp, stringListProp, sectionLabel } from './sections'
export type { PlanSection } from './sections'
export { listMarkers, planWithoutStaleMarkers, stripStaleMarkers } from './markerOps'
export type { SectionMarkers, StaleMarker, StripOptions } from './markerOps'
export { findAffectedSections, describeAffectedSections } from './affected'
export type { AffectedSections, SectionMatch, StructuredTask, StructuredTaskRequirement } from './affected'
export { countItems, matchList, isCountable, resolveImport } from './count'
export type { CountResult, ItemList } from './count'
export { workingTreeSource, memorySource, cachedSource, normalizePath, resolveInside } from './fileSource'
export type { FileSource } from './fileSource'
export { runScopeGates, missingItems, scopeGateIds } from './gates'
export type { ScopeGateInput } from './gates'
export { diffPlans, formatPlanDiff, planDiffGate, formatValue } from './diff'
export type { PlanDiff, PlanDiffGateInput, PropChange, MarkerChange, SectionRef } from './diff'
export {
  planPathOf,
  readGumdrops,
  readTaskNumber,
  projectFileExists,
  loadProjectPlan,
  projectValidateOptions,
  validateProjectPlan,
} from './project'
export type { ProjectPlan } from './project'
export { clipLines, PLAN_PROMPT_CHARS, planForPrompt, tailChars } from './excerpt'
