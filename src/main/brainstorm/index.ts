export { BrainstormSession, type AnswerOutcome, type BrainstormDeps } from './session'
export { validateDocuments, validateRoadmap, roadmapData } from './documents'
export { seedQueueFromRoadmap, tagCriterion, type SeededTrack } from './seedQueue'
export { ledgerPath } from './ledger'
