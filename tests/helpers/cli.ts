import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const RALPH_BIN = fileURLToPath(new URL('../../bin/ralph.js', import.meta.url))

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
  /** The launcher's process id (the CLI runs in it: what it names after its own PID carries this one). */
  pid: number
}

/** Runs the real `ralph` launcher in a child process. */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; prefix?: string[] } = {},
): Promise<CliResult> {
  const prefix = options.prefix ?? []
  const cmd = [...prefix, process.execPath, RALPH_BIN, ...args]
  return new Promise((resolve) => {
    const child = spawn(cmd[0]!, cmd.slice(1), {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.stdin.end(options.input ?? '')
    child.on('close', (code) => resolve({ code, stdout, stderr, pid: child.pid ?? -1 }))
  })
}
