import { useEffect } from 'react'
import { brainstormDomains } from '../../../../shared/brainstorm'
import { useClient } from '../../app/ClientProvider'
import { toast } from '../../ui'

const interruptName = {
  reverse: 'reverse brainstorm',
  analogy: 'analogies',
  constraint: 'constraint injection',
  'black-swan': 'black swans',
} as const

/** The harness's scheduled moves (interrupts, pivots) and files written, announced as they happen. */
export function useBrainstormToasts(projectId: number) {
  const client = useClient()
  useEffect(
    () =>
      client.on('brainstorm.event', ({ projectId: id, event }) => {
        if (id !== projectId) return
        if (event.type === 'brainstorm.interrupt')
          toast(`${event.at} ideas: time for ${interruptName[event.kind]}.`)
        else if (event.type === 'brainstorm.pivot')
          toast(`Domain pivot: ${brainstormDomains.find((d) => d.tag === event.to)?.name ?? event.to}.`)
        else if (event.type === 'brainstorm.written') toast.success(`Wrote ${event.files.join(' and ')}.`)
      }),
    [client, projectId],
  )
}
