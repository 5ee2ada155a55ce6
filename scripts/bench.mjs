// `npm run bench`: every benchmark in turn (each prints a table and writes JSON under bench-results/).
import { spawnSync } from 'node:child_process'

const benches = ['bench:plan', 'bench:loop', 'bench:snapshots', 'bench:cli', 'bench:ui', 'bench:queue']
let failed = 0
for (const name of benches) {
  console.log(`\n=== npm run ${name} ===`)
  const result = spawnSync('npm', ['run', '--silent', name], { stdio: 'inherit' })
  if (result.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
