// The MCP stdio transport for a server started inside the sandbox. @ai-sdk/mcp's own stdio transport spawns its
// command directly and lets the server's stderr through to ours; this one takes the sandbox's program line, keeps
// the tail of stderr to say why a server died, and stops the server's whole process group on close (under
// bubblewrap that ends its PID namespace, so nothing the server started survives).
import { spawn, type ChildProcess } from 'node:child_process'
import { validateJSONRPCMessage, type JSONRPCMessage, type MCPTransport } from '@ai-sdk/mcp'
import type { Launch } from '../sandbox'
import { isGone, noteFailure, type Logger } from '../workspace'

const STDERR_KEEP = 4000
const KILL_GRACE_MS = 500

export class SandboxedStdioTransport implements MCPTransport {
  private child: ChildProcess | null = null
  private buffer = ''
  private stderrTail = ''
  private exited: { code: number | null; signal: NodeJS.Signals | null } | null = null
  private cleaned: Promise<void> | null = null
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  constructor(
    private readonly launch: Launch & { cwd: string },
    private readonly logger: Logger,
    /** Runs once the server has ended (its cgroup removed). */
    private readonly cleanup: () => Promise<void> | undefined = () => undefined,
  ) {}

  /** The last lines the server wrote to stderr. */
  get stderr(): string {
    return this.stderrTail.trim()
  }

  /** How the server process ended; null while it runs. */
  get exit(): { code: number | null; signal: NodeJS.Signals | null } | null {
    return this.exited
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.launch.file, this.launch.args, {
        cwd: this.launch.cwd,
        env: this.launch.env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      })
      this.child = child
      child.once('error', (err) => {
        void this.cleanUp()
        reject(err)
        this.onerror?.(err)
      })
      child.once('spawn', () => resolve())
      child.once('exit', (code, signal) => {
        this.exited = { code, signal }
        this.onclose?.()
        void this.cleanUp()
      })
      child.stdout!.setEncoding('utf8')
      child.stdout!.on('data', (chunk: string) => this.read(chunk))
      child.stderr!.setEncoding('utf8')
      child.stderr!.on('data', (chunk: string) => {
        this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_KEEP)
      })
      // A server that died leaves a broken pipe: the pending request fails through onclose, not here.
      child.stdin!.on('error', (err) => noteFailure(this.logger, 'mcp: a server closed its input', err))
    })
  }

  private read(chunk: string): void {
    this.buffer += chunk
    for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '')
      this.buffer = this.buffer.slice(nl + 1)
      if (line.trim() === '') continue
      try {
        this.onmessage?.(validateJSONRPCMessage(JSON.parse(line)))
      } catch (err) {
        // A line that is not a message (a server logging to stdout): the client hears of it, the server goes on.
        this.onerror?.(err instanceof Error ? err : new Error(String(err)))
      }
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    if (!stdin || this.exited || stdin.destroyed) {
      return Promise.reject(new Error(`the server is not running${this.exitText()}`))
    }
    return new Promise((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (err) => (err ? reject(err) : resolve()))
    })
  }

  /** How the server ended, for error messages ("exit code 3; its last output: …"); '' while it runs. */
  exitDetail(): string {
    if (!this.exited) return ''
    const how = this.exited.code !== null ? `exit code ${this.exited.code}` : `signal ${this.exited.signal}`
    const tail = this.stderr ? `; its last output: ${this.stderr.split('\n').slice(-5).join(' | ')}` : ''
    return `${how}${tail}`
  }

  /** Why the server is gone, to append to a message: " (it ended with …)"; '' while it runs. */
  exitText(): string {
    return this.exited ? ` (it ended with ${this.exitDetail()})` : ''
  }

  /**
   * Ends the server and waits for its cleanup (its cgroup removed), so nothing of it outlives the close: a caller
   * that exits right after (the CLI, a test file) leaves no cgroup behind.
   */
  async close(): Promise<void> {
    const child = this.child
    if (!child || child.pid === undefined) return
    if (!this.exited) {
      const ended = new Promise<void>((r) => child.once('exit', () => r()))
      child.stdin?.end()
      this.signalGroup(child.pid, 'SIGTERM')
      const timer = new Promise<'late'>((r) => setTimeout(() => r('late'), KILL_GRACE_MS))
      if ((await Promise.race([ended, timer])) === 'late') {
        this.signalGroup(child.pid, 'SIGKILL')
        await ended
      }
    }
    await this.cleanUp()
  }

  /** Runs the cleanup once, whoever asks first (the exit, a failed spawn, close); a failure is noted. */
  private cleanUp(): Promise<void> {
    this.cleaned ??= Promise.resolve(this.cleanup())
      .then(() => undefined)
      .catch((err: unknown) => noteFailure(this.logger, 'mcp: a server cleanup failed', err))
    return this.cleaned
  }

  private signalGroup(pid: number, sig: NodeJS.Signals): void {
    try {
      process.kill(-pid, sig)
    } catch (err) {
      if (!isGone(err)) noteFailure(this.logger, `mcp: could not send ${sig} to a server`, err)
    }
  }
}
