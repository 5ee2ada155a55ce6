/** A hint whose `backticked` parts are commands: shown as code (this is the one place install commands belong). */
export function HintText({ text }: { text: string }) {
  const parts = text.split('`')
  return <>{parts.map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}</>
}
