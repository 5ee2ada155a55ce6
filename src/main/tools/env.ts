// The environment run_command gives the model's commands: never API keys or other secrets (DESIGN.md §14).

const SECRET_NAMES = new Set(['RALPH_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY'])
const SECRET_PATTERN = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|ACCESS_KEY|AUTH)/i
// Harmless names the pattern would catch (SSH_AUTH_SOCK stays out: it is a credential).
const KEEP = new Set(['XAUTHORITY'])
// A harness-level git setting would point the model's git commands at the wrong repository.
const DROP = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
])

export function isSecretName(name: string): boolean {
  if (KEEP.has(name)) return false
  return SECRET_NAMES.has(name.toUpperCase()) || SECRET_PATTERN.test(name)
}

export function commandEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || isSecretName(name) || DROP.has(name)) continue
    env[name] = value
  }
  // Commands run unattended: nothing may wait for a pager, a password prompt or an editor.
  env.GIT_TERMINAL_PROMPT = '0'
  env.GIT_PAGER = 'cat'
  env.PAGER = 'cat'
  env.CI ??= '1'
  return env
}
