// Settings: the model provider, the sandbox and the theme.
export { SettingsPage } from './SettingsPage'
export { McpServerApproval } from './McpServerApproval'
export { ChooseModelFirst, FirstRunSetup, useNoModelReason } from './ModelSetup'
