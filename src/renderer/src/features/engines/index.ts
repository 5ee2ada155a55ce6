// Agent engines (DESIGN.md §9): which CLIs this machine has, and each project's choice — one chooser for Settings
// and the project header, and the status bar's words for it.
export { EngineChooser } from './EngineChooser'
export { EngineSettings } from './EngineSettings'
export { engineName, useEngines, useProjectEngine } from './queries'
export { useEngineStatus } from './status'
