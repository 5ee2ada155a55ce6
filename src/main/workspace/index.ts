// The public face of this module: other modules import it from here, never from its files.
export { resolveAppDataDir } from './appPaths'
export { writeFileAtomic, writeFileAtomicSync } from './atomicWrite'
export {
  attempt,
  attemptAsync,
  fallbackTo,
  ifMissing,
  ifMissingOrDenied,
  ifUnreadable,
  isDenied,
  isGone,
  isMissing,
  isUnreadable,
  noteFailure,
  unlessExpected,
  unlessMissing,
} from './failures'
export { initRalphDir } from './initRalphDir'
export { type Logger } from './logFile'
export {
  APP_DATA_MARKER,
  CREDENTIAL_STORES,
  credentialStoreOf,
  forbiddenReason,
  holdsAppData,
  listsAppData,
  HOME_CREDENTIAL_STORES,
  isAppDataFile,
  isEnvFile,
  TOKEN_FILES,
} from './offLimits'
export { parseConfigField, readConfigField, type ConfigField } from './configField'
export { editProjectConfig } from './projectConfigEdit'
export { checkProjectFolder } from './projectFolder'
export {
  defaultLoopConfig,
  parseConfigJson,
  readConfigJson,
  RALPH_DIR,
  ralphDir,
  ralphFiles,
  isTransientRalphFile,
  type RalphFile,
  ralphPath,
} from './ralphFiles'
export { fileKind, notRegularNote, readRegularFile, readRegularText } from './regularFile'
export { appRoot, loadPrompt, promptParts } from './resources'
export { attemptUnlessMissing, isUnwritable, reportedElsewhere } from './failures'
export { deadline, timeoutSignal, type Deadline } from './deadline'
